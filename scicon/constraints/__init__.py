"""Filters on candidate rewrites (constraints): same topic (SIMSCORE), still a claim (CLAIMSCORE),
and edit constraints that a candidate must be a real edit of its parent.

Each constraint registers itself in :data:`CONSTRAINTS` as ``<slot>.<name>``, where the
slot is the params key that chooses it (``evolve.similarity``, ``evolve.claim``,
``evolve.edits``); its settings are ``evolve.settings.<slot>.<name>``.
"""

from scicon.assembly_context import PartFacts
from scicon.constraints.base import ConstraintFactory
from scicon.registry import Registry

CONSTRAINTS: Registry[ConstraintFactory] = Registry("constraint", package=__name__, facts=PartFacts)
