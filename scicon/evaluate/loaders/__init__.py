"""Benchmark loaders, one module each, registered in :data:`LOADERS` by the name params.yaml uses.

A file loader is ``load(path, options) -> list[BenchmarkPair]``; a derived loader
(registered with ``derived=True``, e.g. ``hard``) is ``load(base_benchmark, options)``
and names its base in ``options.base``. ``reads_folders=True`` lets a loader take a
folder as its path. The options model is the entry's ``settings``. A new benchmark
format is its module here and its test; docs/evaluate.md's table is rendered from
this registry (:func:`scicon.evaluate.docs.loaders_table`).
"""

from scicon.registry import Registry

LOADERS = Registry("benchmark loader", package=__name__)
