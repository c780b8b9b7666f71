"""What a search gets (its parts) and returns for one pair."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from scicon.constraints.base import Constraint
from scicon.goal.base import TargetConfidence
from scicon.records.corpus import Abstract
from scicon.records.evolve import GenerationTrace, SearchStatus
from scicon.records.pairs import Pair
from scicon.transformations.base import Transformation


@dataclass(frozen=True)
class SearchSettings:
    """Algorithm 1's sizes (paper Table 6: 4, 5, 4)."""

    population_size: int
    candidates_per_mutation: int
    max_iterations: int


@dataclass(frozen=True)
class SearchParts:
    goal: TargetConfidence
    edits: Sequence[Constraint]  # checked per (parent, candidate), before any model score
    constraints: Sequence[Constraint]  # model scores (topic, claim); a search checks the cheapest first
    transformation: Transformation
    sizes: SearchSettings


@dataclass(frozen=True)
class Accepted:
    text: str
    confidence: float | None
    similarity: float | None
    claim: float | None
    iteration: int


@dataclass(frozen=True)
class SearchOutcome:
    status: SearchStatus
    original_confidence: float | None
    generations: tuple[GenerationTrace, ...] = ()
    accepted: Accepted | None = None


class Search(Protocol):
    name: str

    def run(self, pair: Pair, seed: int, context: Abstract | None = None) -> SearchOutcome: ...


class SearchFactory(Protocol):
    """A registered search: its validated settings (None without any) and the other parts, assembled."""

    def __call__(self, settings: Any, parts: SearchParts) -> Search: ...
