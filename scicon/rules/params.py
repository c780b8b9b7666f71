"""Parameters of the negatives stage (`negatives` in params.yaml)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from scicon.params import Section
from scicon.records.pairs import PairKind


class NegativesParams(Section):
    """Rule-based negatives (stage `negatives`); the operators are ``candidates.operators``."""

    generator: Literal["operators", "modified_eda"]
    pair_kinds: tuple[PairKind, ...] = Field(
        min_length=1, description="kinds of pairs whose sentences are edited"
    )
    sentences: tuple[Literal["sentence1", "sentence2"], ...] = Field(min_length=1)
    max_per_pair: int = Field(gt=0, description="contradictions per source sentence")
    filters: tuple[Literal["grounded", "fluent"], ...] = Field(
        description="checks of candidates (params candidates): grounded in the pair's other sentence, fluent"
    )
    candidates_per_sentence: int = Field(
        gt=0, description="grounded candidates per sentence scored for fluency; the first that pass are kept"
    )
    control_ratio: float = Field(ge=0.0, le=10.0, description="label-preserving controls per contradiction")
    seed: int

    @field_validator("sentences", "pair_kinds", "filters")
    @classmethod
    def _listed_once(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(values)) != len(values):
            raise ValueError("an entry is listed more than once")
        return values
