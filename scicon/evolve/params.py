"""Parameters of the evolve stage (`evolve` in params.yaml); the thresholds are top-level."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from scicon.params import Operational, Section
from scicon.records.base import TargetLabel
from scicon.records.pairs import PairKind


class EvolveParams(Section):
    """The evolve stage: Algorithm 1's sizes (paper Table 6) and its four swappable parts.

    Each paper ablation is a value here (see scicon.evolve.recipes); thresholds are top-level.
    """

    population_size: int = Field(gt=0)
    candidates_per_mutation: int = Field(gt=0)
    max_iterations: int = Field(gt=0)
    targets: tuple[TargetLabel, ...] = Field(min_length=1)
    search: Literal["evolutionary", "direct_prompt"]
    transformation: Literal["llm", "random", "mlm", "rules", "mixed"]
    rules_share: float = Field(ge=0.0, le=1.0, description="mixed: share of rule candidates")
    rule_operators: tuple[str, ...] | None
    similarity: Literal["llm", "embedding", "off"]
    similarity_reference: Literal["sentence1", "original"]
    claim: Literal["llm", "roles", "off"]
    goal: Literal["llm", "classifier"]
    classifier_model: str | None
    contradiction_label: str
    mlm_model: str
    embedding_model: str
    temperature: float = Field(ge=0.0)
    top_p: float = Field(gt=0.0, le=1.0)
    max_new_tokens: int = Field(gt=0)
    pair_kinds: tuple[PairKind, ...] = Field(min_length=1)
    max_pairs: int | None = Field(gt=0)
    seed: int
    workers: int = Operational(gt=0)

    @model_validator(mode="after")
    def _classifier_needs_model(self) -> EvolveParams:
        if self.goal == "classifier" and not self.classifier_model:
            raise ValueError("goal 'classifier' needs classifier_model (a sequence-classification model)")
        if len(set(self.targets)) != len(self.targets):
            raise ValueError("targets are listed more than once")
        return self
