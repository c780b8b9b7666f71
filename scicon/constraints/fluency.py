"""The fluency constraint: a rewrite may lose at most ``max_drop`` nats of log-likelihood against
the pair's original sentence2 under a small language model (``candidates.fluency``, read by
:mod:`scicon.candidates`: the same check the negatives stage applies)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from scicon.assembly_context import AssemblyContext
from scicon.candidates import FluencyParams, FluencyScorer
from scicon.constraints import CONSTRAINTS
from scicon.constraints.base import BACKBONE_COST, ConstraintCheck
from scicon.params import Section


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

    def models(self) -> dict[str, object]:
        return {"language_model": self.scorer.backbone.identity_digest}


class LanguageModelFluencySettings(Section):
    fluency: FluencyParams = Field(
        description="the language model and the most log-likelihood a rewrite may lose"
    )


@CONSTRAINTS.register(
    "fluency.language_model",
    settings=LanguageModelFluencySettings,
    description="at most max_drop nats less likely than the original sentence2",
    reads={"fluency": "candidates.fluency"},
)
def language_model_fluency(
    settings: LanguageModelFluencySettings, context: AssemblyContext
) -> FluencyConstraint:
    fluency = settings.fluency
    return FluencyConstraint(FluencyScorer(context.model(fluency.language_model), fluency))
