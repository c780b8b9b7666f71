"""Parameters of the annotation rounds (`judgements` in params.yaml)."""

from __future__ import annotations

from pydantic import Field, model_validator

from scicon.params import Probability, Section

SOURCES = ("original", "rule_cross", "control_cross", "evonli_accepted", "evonli_near_miss", "other_abstract")


class JudgementsParams(Section):
    sizes: dict[str, int] = Field(
        description="items to sample per source (a source missing from the pool gives none)"
    )
    min_per_stratum: int = Field(
        ge=0, description="items each operator / mutation type gets within its source"
    )
    uncertainty_boost: float = Field(
        ge=0.0,
        description="extra weight of an item the teacher is least sure about: 1 + boost * (1 - |2p - 1|)",
    )
    near_miss_margin: float = Field(
        gt=0.0,
        le=1.0,
        description="an EvoNLI candidate that passed every check within this of target is a near miss",
    )
    other_abstract_per_abstract: int = Field(
        ge=0, description="closest conclusions of other abstracts per sentence1"
    )
    annotators: int = Field(gt=0, le=100, description="batches, one per annotator")
    multi_read: int = Field(ge=0, description="sampled items read by `readers` annotators, for agreement")
    readers: int = Field(ge=2, description="annotators of each multi-read item")
    controls_per_batch: int = Field(ge=0, description="hidden gold items mixed into each batch")
    min_control_accuracy: float = Probability
    confidence_level: float = Field(gt=0.0, lt=1.0, description="level of the control accuracies' intervals")
    seed: int

    @model_validator(mode="after")
    def _consistent(self) -> JudgementsParams:
        unknown = sorted(set(self.sizes) - set(SOURCES))
        if unknown:
            raise ValueError(f"judgements.sizes: unknown sources {unknown} (known: {', '.join(SOURCES)})")
        if self.readers > self.annotators and self.multi_read:
            raise ValueError(
                f"judgements.readers ({self.readers}) exceeds judgements.annotators ({self.annotators})"
            )
        return self
