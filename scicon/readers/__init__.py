"""Readers of labelled sentence pairs: one loader module per format, registered in :data:`LOADERS`
by the name params.yaml uses, and :mod:`scicon.readers.sets`, which reads a configured set.

Evaluation, the judges (teacher, entailment) and the SciCon build all read their labelled
pairs here, from below. A file loader is ``load(path, options) -> list[BenchmarkPair]``;
``reads_folders=True`` lets a loader take a folder as its path. The options model is the
entry's ``settings``. A new format is its module here and its test. A loader that only
evaluation needs (a benchmark derived from another, SciCon's own test split) lives in
:mod:`scicon.evaluate.loaders`, whose registry extends this one, so adding it changes the
code of the evaluate stage alone. docs/evaluate.md's table is rendered from both
(:func:`scicon.docs.loaders_table`).
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import Field

from scicon.params import Section
from scicon.records.benchmark import BenchmarkPair
from scicon.registry import Registry


class LoaderOptions(Section):
    """Base of every loader's options (its ``options`` block in params.yaml)."""


class LoaderFacts(Section):
    """What a loader states when it registers (docs/evaluate.md's table shows the first two)."""

    keys: str = Field(description="how a pair's key is made: stable across runs and machines")
    groups: str = Field(description="what pairs that share a premise, trial or abstract have in common")
    derived: bool = Field(default=False, description="made from another benchmark (options.base), no path")
    reads_folders: bool = Field(default=False, description="its path may be a folder")


class LoaderFactory(Protocol):
    """A registered loader: a file's path (or a derived loader's base benchmark) and its
    validated options (None without any)."""

    def __call__(self, source: Any, options: Any) -> list[BenchmarkPair]: ...


LOADERS: Registry[LoaderFactory] = Registry("benchmark loader", package=__name__, facts=LoaderFacts)
