"""Parameters of the pairs stage (`pairs` in params.yaml)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from scicon.params import Section
from scicon.records.pairs import PairKind


class PairsParams(Section):
    kinds: tuple[PairKind, ...] = Field(min_length=1)
    result_selector: Literal["tfidf", "overlap", "entailment", "llm"]
    llm_fallback: Literal["tfidf", "overlap", "none"]
    generate_missing_conclusions: bool
    llm_max_tokens: int = Field(gt=0)
    max_conclusion_pairs_per_abstract: int | None = Field(ge=0)
    max_result_pairs_per_abstract: int | None = Field(ge=0)
    min_words: int = Field(gt=0)
    entailment_model: str = Field(
        min_length=1, description="folder of the entailment stage's judge (classes non_entailment/entailment)"
    )
    min_entailment: float | None = Field(
        ge=0.0, le=1.0, description="drop pairs whose calibrated P(sentence1 entails sentence2) is below it"
    )

    @property
    def uses_entailment(self) -> bool:
        """Whether the entailment judge is needed (the selector or the filter)."""
        return self.result_selector == "entailment" or self.min_entailment is not None

    @field_validator("kinds")
    @classmethod
    def _distinct(cls, kinds: tuple[PairKind, ...]) -> tuple[PairKind, ...]:
        if len(set(kinds)) != len(kinds):
            raise ValueError("pair kinds are listed more than once")
        return kinds
