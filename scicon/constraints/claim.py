"""CLAIMSCORE: is the candidate still a claim (a finding, not background or methods)?

The paper asks the backbone (prompt E.3.6) and thresholds its P(yes) at ``claim``. The
offline alternative is a claim classifier learnt from the corpus itself — the paper's
section 3.1 uses the rhetorical roles because conclusions carry claims and background
and methods do not — or from a labelled claim file, calibrated on held-out abstracts so
that its output is a probability (:mod:`scicon.fitted.claim_model`; measured against
expert claim labels in docs/filters.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from scicon.assembly_context import AssemblyContext
from scicon.constraints import CONSTRAINTS
from scicon.constraints.base import (
    LOCAL_MODEL_COST,
    BackboneQuestion,
    BackboneQuestionSettings,
    ConstraintCheck,
    ThresholdConstraint,
)
from scicon.fitted.claim_model import ClaimModel, ClaimModelSettings, fit_claim_model
from scicon.params import Probability, Section
from scicon.prompts import CLAIM_DETECTION


class LlmClaimSettings(BackboneQuestionSettings):
    pass


class TrainedClaimSettings(Section):
    model: ClaimModelSettings = Field(description="the claim classifier and its calibration")
    threshold: float = Probability


class LlmClaim(BackboneQuestion):
    kind = "claim"
    name = "llm"

    def question(self, check: ConstraintCheck) -> str:
        return CLAIM_DETECTION.format(sentence=check.candidate)


@CONSTRAINTS.register(
    "claim.llm",
    settings=LlmClaimSettings,
    needs_backbone=True,
    description="the backbone answers 'contains a claim?' (prompt E.3.6)",
    reads={"threshold": "claim"},
)
def llm_claim(settings: LlmClaimSettings, context: AssemblyContext) -> LlmClaim:
    backbone = context.backbone(settings.backbone, "evolve.settings.claim.llm.backbone")
    return LlmClaim(backbone, settings.threshold, settings.min_mass)


class TrainedClaim(ThresholdConstraint):
    """P(claim) of each candidate from the calibrated claim model."""

    kind = "claim"
    name = "trained"
    cost = LOCAL_MODEL_COST

    def __init__(self, model: ClaimModel, threshold: float):
        self.model = model
        self.threshold = threshold
        self.report = model.quality(threshold)  # held-out quality at the threshold

    def models(self) -> dict[str, object]:
        return {"claim_model": self.model.key}  # digest of its training data, settings and code

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float | None]:
        return list(self.model.probabilities([c.candidate for c in checks])) if checks else []


@CONSTRAINTS.register(
    "claim.trained",
    settings=TrainedClaimSettings,
    description="a claim classifier learnt from the corpus' roles (or a labelled claim file), calibrated",
    reads={"model": "filter_models.claim_model", "threshold": "claim"},
)
def trained_claim(settings: TrainedClaimSettings, context: AssemblyContext) -> TrainedClaim:
    return TrainedClaim(fit_claim_model(context.abstracts, settings.model), settings.threshold)
