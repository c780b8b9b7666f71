"""What a search returns for one pair."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from scicon.records.evolve import GenerationTrace


@dataclass(frozen=True)
class SearchSettings:
    """Algorithm 1's sizes (paper Table 6)."""

    population_size: int = 4
    candidates_per_mutation: int = 5
    max_iterations: int = 4


@dataclass(frozen=True)
class Accepted:
    text: str
    confidence: float
    similarity: float | None
    claim: float | None
    iteration: int


@dataclass(frozen=True)
class SearchOutcome:
    status: Literal["succeeded", "failed", "skipped"]
    original_confidence: float | None
    generations: tuple[GenerationTrace, ...] = ()
    accepted: Accepted | None = None
