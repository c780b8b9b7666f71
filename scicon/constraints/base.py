"""What a constraint is: a score per candidate and a threshold it must reach."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

Reference = Literal["sentence1", "original"]


@dataclass(frozen=True)
class ConstraintCheck:
    """A candidate to check, with the two sentences a constraint may compare it against."""

    candidate: str
    sentence1: str
    original: str


class Constraint(Protocol):
    """``kind`` names the score in traces and metrics (``similarity`` or ``claim``).

    ``cost`` orders the checks: the search runs the cheapest first and skips the
    remaining scores of a candidate that already failed one.
    """

    kind: str
    name: str
    threshold: float
    cost: int

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float]: ...


# Relative costs: local models are cheaper than backbone calls.
LOCAL_MODEL_COST = 1
BACKBONE_COST = 10
