"""What a constraint is: a score per candidate, and whether that score lets the candidate pass."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import Field

from scicon.backbones.cache import CachedBackbone, yes_probabilities
from scicon.params import Probability, Section, meets_threshold

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
    model gave no usable answer (see an llm filter's ``min_mass``): the candidate is rejected.
    A constraint that uses a model says which in ``models()`` (label -> identity), and one
    fitted on the corpus may hold its quality in ``report``, for the metrics.
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


class BackboneQuestionSettings(Section):
    """An llm filter's settings: its threshold (``sim`` or ``claim``, read at the top level) and
    the least probability its yes and no answers must hold."""

    threshold: float = Probability
    min_mass: float = Field(
        ge=0.0, le=1.0, description="a yes/no answer with less probability on yes+no is no answer"
    )
    backbone: dict | None = Field(description="overrides of the backbone section for this filter")


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

    def models(self) -> dict[str, object]:
        return {"backbone": self.backbone.identity_digest}
