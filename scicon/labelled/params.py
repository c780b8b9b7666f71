"""A labelled set as a training source: a benchmark loader entry plus how much it counts."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from scicon.evaluate.params import BenchmarkSpec


class LabelledSpec(BenchmarkSpec):
    weight: float = Field(gt=0.0, description="copies of each training row (a fraction: a seeded share)")
    cap: int | None = Field(gt=0, description="at most this many rows, a seeded sample (null: all)")


def labelled_base(labelled_root: str | None) -> Path:
    """Where relative labelled paths resolve: the labelled root, else the repository."""
    return Path(labelled_root).expanduser() if labelled_root else Path(".")
