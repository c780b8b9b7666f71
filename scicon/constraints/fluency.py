"""The fluency constraint: a rewrite may lose at most ``candidates.fluency.max_drop`` nats of
log-likelihood against the pair's original sentence2 under a small language model
(:mod:`scicon.candidates`, the same check the negatives stage applies)."""

from __future__ import annotations

from collections.abc import Sequence

from scicon.assembly_context import AssemblyContext
from scicon.candidates import FluencyScorer
from scicon.constraints import CONSTRAINTS
from scicon.constraints.base import BACKBONE_COST, ConstraintCheck


class FluencyConstraint:
    kind = "fluency"
    name = "language_model"
    cost = BACKBONE_COST

    def __init__(self, scorer: FluencyScorer):
        self.scorer = scorer

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float | None]:
        return list(self.scorer.drops([c.original for c in checks], [c.candidate for c in checks]))

    def passes(self, score: float) -> bool:
        return self.scorer.passes(score)


@CONSTRAINTS.register(
    "fluency.language_model",
    description="at most candidates.fluency.max_drop nats less likely than the original sentence2",
)
def language_model_fluency(settings: None, context: AssemblyContext) -> FluencyConstraint:
    fluency = context.candidate_checks("evolve.fluency: language_model").fluency
    return FluencyConstraint(FluencyScorer(context.model(fluency.language_model), fluency))
