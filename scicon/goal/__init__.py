"""The goal of the search (CLASSIFY): a confident target label from a frozen teacher.

A teacher registers itself in :data:`GOALS` in its own module; the evolve stage picks
one by name (``evolve.goal``) with its settings (``evolve.settings.goal.<name>``).
"""

from pydantic import Field

from scicon.assembly_context import PartFacts
from scicon.goal.base import GoalFactory
from scicon.registry import Registry


class GoalFacts(PartFacts):
    """What a goal states when it registers."""

    folder_setting: str | None = Field(
        default=None, description="its setting that `evolve --teacher FOLDER` fills (self-training)"
    )


GOALS: Registry[GoalFactory] = Registry("goal", package=__name__, facts=GoalFacts)
