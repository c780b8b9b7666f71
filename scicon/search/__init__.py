"""The search method (Algorithm 1 and its direct-prompt baseline), one registered entry each.

A search factory gets its settings and the other three parts, assembled: the goal, the
constraints and the transformation (:class:`scicon.search.base.SearchParts`); checking the
cheapest constraint first is the search's job.
"""

from scicon.registry import Registry
from scicon.search.base import SearchFactory

SEARCHES: Registry[SearchFactory] = Registry("search", package=__name__)
