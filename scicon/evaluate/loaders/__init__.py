"""Benchmark loaders, one module each, registered in :data:`LOADERS` by the name params.yaml uses.

A file loader is ``load(path, options) -> list[BenchmarkPair]``; a derived loader
(registered with ``derived=True``, e.g. ``hard``) is ``load(base_benchmark, options)``
and names its base in ``options.base``. ``reads_folders=True`` lets a loader take a
folder as its path. The options model is the entry's ``settings``. A new benchmark
format is its module here and its test; docs/evaluate.md's table is rendered from
this registry (:func:`scicon.evaluate.docs.loaders_table`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from scicon.registry import Registry

if TYPE_CHECKING:
    from scicon.evaluate.benchmarks import BenchmarkPair


class LoaderFactory(Protocol):
    """A registered loader: a file's path (or a derived loader's base benchmark) and its
    validated options (None without any)."""

    def __call__(self, source: Any, options: Any) -> list[BenchmarkPair]: ...


LOADERS: Registry[LoaderFactory] = Registry("benchmark loader", package=__name__)
