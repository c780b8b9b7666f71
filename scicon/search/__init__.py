"""The search method (Algorithm 1 and its direct-prompt baseline), one registered entry each.

A search factory gets its settings and the other three parts, assembled: the goal, the
constraints (cheapest first) and the transformation (:class:`scicon.search.base.SearchParts`).
"""

from scicon.registry import Registry
from scicon.search.base import SearchFactory

SEARCHES: Registry[SearchFactory] = Registry("search", package=__name__)
