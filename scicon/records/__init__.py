"""Typed records that travel between stages, one module per stage that writes them.

Import from the submodules (``scicon.records.corpus``, ``.pairs``, ...): this package
imports nothing, so a stage depends on the records it uses and no others.
"""
