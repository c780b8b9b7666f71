"""The search method (Algorithm 1 and its direct-prompt baseline), one registered entry each.

A search factory gets its settings and the other three parts, assembled: the goal and the
constraints, in one :class:`scicon.search.base.CandidateChecks` that checks candidates in the
same order for every search, and the transformation (:class:`scicon.search.base.SearchParts`).
A search imports none of its siblings: what two of them share lives in :mod:`scicon.search.base`.
"""

from scicon.registry import Registry
from scicon.search.base import SearchFactory

SEARCHES: Registry[SearchFactory] = Registry("search", package=__name__)
