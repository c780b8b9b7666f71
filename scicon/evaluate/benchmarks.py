"""The evaluate stage's benchmarks (`evaluate.benchmarks`): labelled sets read as
:mod:`scicon.readers.sets` reads any, with evaluation's own loaders (``hard``, ``scicon``) too."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from scicon.evaluate.loaders import BENCHMARK_LOADERS
from scicon.readers.sets import SetSpec, Skipped, load_sets
from scicon.records.benchmark import Benchmark


def load_benchmarks(specs: Mapping[str, SetSpec], root: Path = Path(".")) -> dict[str, Benchmark | Skipped]:
    """Every configured benchmark, in params order (see :func:`scicon.readers.sets.load_sets`)."""
    return load_sets(specs, root, BENCHMARK_LOADERS, section="evaluate.benchmarks")
