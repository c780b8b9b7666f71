"""Parameters of the negatives stage (`negatives` in params.yaml)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from scicon.params import Section


class NegativesParams(Section):
    """Rule-based negatives (stage `negatives`); operator names are checked against the registry."""

    generator: Literal["operators", "modified_eda"]
    operators: tuple[str, ...] = Field(min_length=1)
    sentences: tuple[Literal["sentence1", "sentence2"], ...] = Field(min_length=1)
    max_per_pair: int = Field(gt=0, description="contradictions per source sentence")
    control_ratio: float = Field(ge=0.0, le=10.0, description="label-preserving controls per contradiction")
    seed: int

    @field_validator("operators", "sentences")
    @classmethod
    def _listed_once(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(values)) != len(values):
            raise ValueError("an entry is listed more than once")
        return values
