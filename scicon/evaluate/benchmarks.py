"""Benchmarks: sentence pairs with a binary label, each read by a registered loader.

A benchmark in params.yaml names a loader ``kind`` (an entry of
:data:`scicon.evaluate.loaders.LOADERS`, one module each), a ``path`` and the
loader's ``options``. Label 1 is contradiction, 0 is everything else (entailment and
neutral merged, as the paper does after Makhervaks et al., 2023).

Every pair carries a ``key`` that names it the same way in every run and on every
machine (file name and line, or the benchmark's own id), so per-example scores of
different runs can be joined; and, where the benchmark has one, a ``group`` (the
premise, the trial, the abstract) that out-of-fold baselines keep within one fold.

A benchmark whose path is absent, or that ends up without both classes, is *skipped*
with the reason, never scored as zero. A malformed row stops the stage with the file
and line (or record id) named.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from scicon.errors import InputFormatError, ParamsError
from scicon.evaluate.loaders import LOADERS
from scicon.evaluate.params import BenchmarkSpec
from scicon.records.benchmark import Benchmark

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Skipped:
    name: str
    kind: str
    path: str | None
    reason: str


def load_benchmarks(
    specs: Mapping[str, BenchmarkSpec], root: Path = Path(".")
) -> dict[str, Benchmark | Skipped]:
    """Load every configured benchmark, in params order; derived ones (``hard``) after their base."""
    entries = {
        name: LOADERS.get(spec.kind, key=f"evaluate.benchmarks.{name}.kind") for name, spec in specs.items()
    }
    options = {
        name: entries[name].validate_settings(spec.options, f"evaluate.benchmarks.{name}.options")
        for name, spec in specs.items()
    }
    derived = {name for name, entry in entries.items() if entry.extra.get("derived")}
    loaded: dict[str, Benchmark | Skipped] = {}
    for name, spec in specs.items():
        if name not in derived:
            loaded[name] = _load_file(name, spec, options[name], root)
    for name, spec in specs.items():
        if name in derived:
            loaded[name] = _load_derived(name, spec, options[name], loaded)
    for name, result in loaded.items():
        if isinstance(result, Benchmark):
            _check_keys(result)
            result = _check_classes(result)
            loaded[name] = result
        if isinstance(result, Skipped):
            log.warning("evaluate: skipping %s: %s", name, result.reason)
        else:
            log.info("evaluate: %s: %d pairs, %d contradictions", name, len(result.pairs), sum(result.labels))
    return {name: loaded[name] for name in specs}


def _load_file(name: str, spec: BenchmarkSpec, options, root: Path) -> Benchmark | Skipped:
    if not spec.path:
        return Skipped(name, spec.kind, spec.path, "no path configured")
    path = Path(spec.path).expanduser()
    if not path.is_absolute():
        path = root / path
    if not path.exists():
        return Skipped(name, spec.kind, spec.path, f"file not found: {spec.path}")
    entry = LOADERS.get(spec.kind)
    if path.is_dir() and not entry.extra.get("reads_folders"):
        raise InputFormatError(str(path), f"is a folder; the {spec.kind} loader reads a file")
    return Benchmark(name, spec.kind, spec.path, entry.factory(path, options))


def _load_derived(name: str, spec: BenchmarkSpec, options, loaded: dict) -> Benchmark | Skipped:
    base = loaded.get(options.base)
    if base is None:
        raise ParamsError(
            f"evaluate.benchmarks.{name}.options.base: {options.base!r} is not a file benchmark"
        )
    if isinstance(base, Skipped):
        return Skipped(name, spec.kind, base.path, f"base benchmark {options.base!r} skipped: {base.reason}")
    return Benchmark(name, spec.kind, base.path, LOADERS.get(spec.kind).factory(base, options))


def _check_keys(benchmark: Benchmark) -> None:
    repeated = [key for key, count in Counter(pair.key for pair in benchmark.pairs).items() if count > 1]
    if repeated:
        raise RuntimeError(f"{benchmark.name}: the {benchmark.kind} loader gave repeated keys {repeated[:3]}")


def _check_classes(benchmark: Benchmark) -> Benchmark | Skipped:
    labels = set(benchmark.labels)
    if labels == {0, 1}:
        return benchmark
    found = "no pairs" if not labels else f"only label {labels.pop()}"
    return Skipped(
        benchmark.name, benchmark.kind, benchmark.path, f"needs both classes for ROC-AUC; found {found}"
    )
