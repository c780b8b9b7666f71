"""What a constraint is: a score per candidate, and whether that score lets the candidate pass."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from scicon.backbones.cache import CachedBackbone, yes_probabilities
from scicon.params import meets_threshold

if TYPE_CHECKING:
    from scicon.assembly_context import AssemblyContext

Reference = Literal["sentence1", "original"]

# Relative costs: string checks are free, local models cheaper than backbone calls.
EDIT_COST = 0
LOCAL_MODEL_COST = 1
BACKBONE_COST = 10


@dataclass(frozen=True)
class ConstraintCheck:
    """A candidate to check, with the sentences a constraint may compare it against."""

    candidate: str
    sentence1: str
    original: str  # the pair's unmutated sentence2
    parent: str = ""  # the population member the candidate was made from

    def reference(self, which: Reference) -> str:
        return self.sentence1 if which == "sentence1" else self.original


class Constraint(Protocol):
    """``kind`` names the score in traces and metrics (``similarity``, ``claim`` or ``edit``).

    ``cost`` orders the checks: the search runs the cheapest first and skips the
    remaining scores of a candidate that already failed one. A score of None means the
    model gave no usable answer (see ``evolve.min_mass``): the candidate is rejected.
    """

    kind: str
    name: str
    cost: int

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float | None]: ...

    def passes(self, score: float) -> bool: ...


class ConstraintFactory(Protocol):
    """A registered constraint: its validated settings (None without any) and the context."""

    def __call__(self, settings: Any, context: AssemblyContext) -> Constraint: ...


class ThresholdConstraint:
    """A probability that must reach its threshold (``sim`` or ``claim``)."""

    kind = "threshold"
    name = "threshold"
    cost = 0
    threshold = 0.0

    def passes(self, score: float) -> bool:
        return meets_threshold(score, self.threshold)


class BackboneQuestion(ThresholdConstraint):
    """The backbone's P(yes) to a question about each candidate (the paper's LLM filters);
    None where it gave no usable answer (``min_mass``)."""

    cost = BACKBONE_COST

    def __init__(self, backbone: CachedBackbone, threshold: float, min_mass: float):
        self.backbone = backbone
        self.threshold = threshold
        self.min_mass = min_mass

    def question(self, check: ConstraintCheck) -> str:
        raise NotImplementedError

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float | None]:
        prompts = [self.question(check) for check in checks]
        return yes_probabilities(self.backbone, prompts, self.kind, self.min_mass)
