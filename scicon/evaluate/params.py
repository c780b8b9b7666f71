"""Parameters of the evaluate stage (`evaluate` in params.yaml)."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from scicon.params import Section
from scicon.readers.sets import SetSpec

_NAME = re.compile(r"[a-z0-9_]+")


class EvaluateParams(Section):
    benchmarks: dict[str, SetSpec] = Field(min_length=1)
    classifiers: dict[str, str] = Field(description="name -> classifier folder; every pair is compared")
    zero_shot: bool
    baselines: dict[str, dict | None] = Field(description="baseline name -> its settings ({} when none)")
    batch_size: int = Field(gt=0)
    bootstrap_resamples: int = Field(gt=0)
    confidence_level: float = Field(gt=0.0, lt=1.0)
    ngram_sizes: tuple[int, ...] = Field(min_length=1)
    max_examples: int | None = Field(gt=0, description="seeded sample per benchmark")
    seed: int

    @field_validator("benchmarks", "classifiers")
    @classmethod
    def _snake_case_names(cls, named: dict) -> dict:
        for name in named:
            if not _NAME.fullmatch(name):
                raise ValueError(f"name {name!r} must be snake_case (it becomes a metrics key)")
        return named

    @field_validator("classifiers")
    @classmethod
    def _not_reserved(cls, classifiers: dict[str, str]) -> dict[str, str]:
        for reserved in ("zero_shot", "best_baseline"):
            if reserved in classifiers:
                raise ValueError(f"{reserved!r} names another scorer; choose another classifier name")
        return classifiers
