"""Parameters of the evaluate stage (`evaluate` in params.yaml)."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from scicon.params import Section


class BenchmarkSpec(Section):
    """One benchmark: a loader kind from the registry, a path, and the loader's options."""

    kind: str = Field(min_length=1)
    path: str | None = None  # absent for derived benchmarks (kind: hard)
    options: dict = Field(default_factory=dict)  # a loader without options needs none


class EvaluateParams(Section):
    benchmarks: dict[str, BenchmarkSpec] = Field(min_length=1)
    batch_size: int = Field(gt=0)
    zero_shot: bool
    bootstrap_resamples: int = Field(gt=0)
    confidence_level: float = Field(gt=0.0, lt=1.0)
    ngram_sizes: tuple[int, ...] = Field(min_length=1)
    max_examples: int | None = Field(gt=0, description="seeded sample per benchmark")
    seed: int

    @field_validator("benchmarks")
    @classmethod
    def _snake_case_names(cls, benchmarks: dict[str, BenchmarkSpec]) -> dict[str, BenchmarkSpec]:
        for name in benchmarks:
            if not re.fullmatch(r"[a-z0-9_]+", name):
                raise ValueError(f"benchmark name {name!r} must be snake_case (it becomes a metrics key)")
        return benchmarks
