"""The paper's teacher: the backbone's P("yes") under the classification prompt (E.3.4)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from scicon.assembly_context import AssemblyContext
from scicon.backbones.cache import CachedBackbone, yes_probabilities
from scicon.goal import GOALS
from scicon.goal.base import SentencePair
from scicon.params import Section
from scicon.prompts import CLASSIFICATION


class LlmGoalSettings(Section):
    min_mass: float = Field(
        ge=0.0, le=1.0, description="a yes/no answer with less probability on yes+no is no answer"
    )
    backbone: dict | None = Field(description="overrides of the backbone section for the teacher")


class LlmContradictionScorer:
    """P(yes) of the classification prompt; None below ``min_mass`` (no usable answer)."""

    name = "llm"

    def __init__(self, backbone: CachedBackbone, min_mass: float = 0.0):
        self.backbone = backbone
        self.min_mass = min_mass

    def contradiction_probabilities(
        self, pairs: Sequence[SentencePair], originals: Sequence[str | None] | None = None
    ) -> list[float | None]:
        """Prompt E.3.4 reads the pair alone, as in the paper; ``originals`` are not shown."""
        prompts = [CLASSIFICATION.format(sentence1=first, sentence2=second) for first, second in pairs]
        return yes_probabilities(self.backbone, prompts, "classification", self.min_mass)

    def models(self) -> dict[str, object]:
        return {"backbone": self.backbone.identity_digest}


@GOALS.register(
    "llm", settings=LlmGoalSettings, needs_backbone=True, description="the backbone (prompt E.3.4)"
)
def llm_goal(settings: LlmGoalSettings, context: AssemblyContext) -> LlmContradictionScorer:
    backbone = context.backbone(settings.backbone, "evolve.settings.goal.llm.backbone")
    return LlmContradictionScorer(backbone, settings.min_mass)
