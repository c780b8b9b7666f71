"""Parameters of the build stage (`build` in params.yaml) and the sources it can use."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, field_validator, model_validator

from scicon.params import Section


class BuildSource(StrEnum):
    """Where SciCon rows come from; ``build.sources`` lists the ones to use."""

    EVONLI = "evonli"  # evolve: accepted pairs with target contradiction (label 1)
    EVONLI_NON_CONTRADICTION = "evonli_non_contradiction"  # evolve: target non_contradiction (label 0)
    ORIGINAL = "original"  # pairs: the unmutated entailing pairs (label 0)
    RULES = "rules"  # negatives: rule-made contradictions (label 1)
    RULE_CONTROLS = "rule_controls"  # negatives: label-preserving rule edits (label 0)


class BuildParams(Section):
    sources: tuple[BuildSource, ...] = Field(min_length=1)
    dev_fraction: float = Field(ge=0.0, lt=1.0)
    test_fraction: float = Field(ge=0.0, lt=1.0)
    seed: int
    hypothesis_only_baseline: bool

    @field_validator("sources")
    @classmethod
    def _distinct_sources(cls, sources: tuple[BuildSource, ...]) -> tuple[BuildSource, ...]:
        if len(set(sources)) != len(sources):
            raise ValueError("sources are listed more than once")
        return sources

    @model_validator(mode="after")
    def _fractions_leave_training_data(self) -> BuildParams:
        if self.dev_fraction + self.test_fraction >= 1.0:
            raise ValueError("dev_fraction + test_fraction must leave a training split (sum below 1)")
        return self
