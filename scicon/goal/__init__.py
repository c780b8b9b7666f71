"""The goal of the search (CLASSIFY): a confident target label from a frozen teacher.

A teacher registers itself in :data:`GOALS` in its own module; the evolve stage picks
one by name (``evolve.goal``) with its settings (``evolve.settings.goal.<name>``).
"""

from scicon.goal.base import GoalFactory
from scicon.registry import Registry

GOALS: Registry[GoalFactory] = Registry("goal", package=__name__)
