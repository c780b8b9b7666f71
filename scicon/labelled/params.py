"""A labelled set as a training source: a benchmark loader entry plus how much it counts."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import Field

from scicon.evaluate.params import BenchmarkSpec


class LabelledSpec(BenchmarkSpec):
    weight: float = Field(gt=0.0, description="copies of each training row (a fraction: a seeded share)")
    cap: int | None = Field(gt=0, description="at most this many rows, a seeded sample (null: all)")
    root: Literal["labelled_root", "repository"] = Field(
        default="labelled_root",
        description="where a relative path resolves: the labelled root, or this repository (a set vendored "
        "here, such as data/labelled/scicon-judgements, whatever labelled_root says)",
    )


def labelled_base(labelled_root: str | None) -> Path:
    """Where relative labelled paths resolve: the labelled root, else the repository."""
    return Path(labelled_root).expanduser() if labelled_root else Path(".")


def resolved(specs: Mapping[str, LabelledSpec]) -> dict[str, LabelledSpec]:
    """``specs`` with the relative paths of sets kept in this repository made absolute, so they
    resolve here whatever the labelled root."""
    return {
        name: spec.model_copy(update={"path": str(Path(spec.path).resolve())})
        if spec.root == "repository" and spec.path and not Path(spec.path).is_absolute()
        else spec
        for name, spec in specs.items()
    }
