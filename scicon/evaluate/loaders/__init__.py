"""Benchmark loaders, one module each, registered in :data:`LOADERS` by the name params.yaml uses.

A file loader is ``load(path, options) -> list[BenchmarkPair]``; a derived loader
(registered with ``derived=True``, e.g. ``hard``) is ``load(base_benchmark, options)``
and names its base in ``options.base``. ``reads_folders=True`` lets a loader take a
folder as its path. The options model is the entry's ``settings``. A new benchmark
format is its module here and its test; docs/evaluate.md's table is rendered from
this registry (:func:`scicon.docs.loaders_table`).
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
