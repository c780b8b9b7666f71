"""Parameters of the audit stages (`audit` in params.yaml)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from scicon.params import Section

# Example fields a sample can be stratified on or restricted to.
StratumField = Literal["generator", "label", "operator", "mutation_type", "split"]
LABEL_VALUES = ("contradiction", "non_contradiction")


class AuditParams(Section):
    size: int = Field(gt=0, description="items in the sample (fewer when the build holds fewer)")
    annotators: int = Field(gt=0, le=100, description="blinded files to write, one per annotator")
    strata: tuple[StratumField, ...] = Field(min_length=1)
    min_per_stratum: int = Field(ge=0, description="items every stratum gets, even when rarer than that")
    only: dict[StratumField, tuple[str, ...]] = Field(
        description="rows to sample from: field -> accepted values (empty: every row of the build)"
    )
    bootstrap_resamples: int = Field(gt=0)
    confidence_level: float = Field(gt=0.0, lt=1.0)
    seed: int

    @field_validator("strata")
    @classmethod
    def _distinct(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(values)) != len(values):
            raise ValueError("values are listed more than once")
        return values

    @field_validator("only")
    @classmethod
    def _values_listed(cls, only: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        for field, values in only.items():
            if not values:
                raise ValueError(f"{field}: list at least one value (or leave the field out)")
            if field == "label" and not set(values) <= set(LABEL_VALUES):
                raise ValueError(f"label: values are {', '.join(LABEL_VALUES)} (got {list(values)})")
        return only
