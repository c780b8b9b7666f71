"""Labelled sets as params.yaml names them, and reading them.

A set names a loader ``kind`` (an entry of :data:`scicon.readers.LOADERS`, or of a registry
that extends it), a ``path`` and the loader's ``options``. Label 1 is contradiction, 0 is
everything else (entailment and neutral merged, as the paper does after Makhervaks et al.,
2023). Evaluation reads its benchmarks this way, the judges and the build their labelled
training sets (:class:`LabelledSpec`), both the gold yardstick (:class:`GoldSpec`).

Every pair carries a ``key`` that names it the same way in every run and on every
machine (file name and line, or the set's own id), so per-example scores of different
runs can be joined; and, where the set has one, a ``group`` (the premise, the trial, the
abstract) that out-of-fold baselines keep within one fold.

A set whose path is absent, or that ends up without both classes, is *skipped* with the
reason, never scored as zero. A malformed row stops the stage with the file and line (or
record id) named.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from scicon.errors import InputFormatError, ParamsError
from scicon.params import Section
from scicon.readers import LOADERS, LoaderFactory
from scicon.records.benchmark import Benchmark
from scicon.registry import Entry, Registry

log = logging.getLogger(__name__)


class SetSpec(Section):
    """One labelled set: a loader kind from the registry, a path, and the loader's options."""

    kind: str = Field(min_length=1)
    path: str | None = Field(description="file or folder; null for derived benchmarks (kind: hard)")
    options: dict | None = Field(description="the loader's options ({} or null when it takes none)")


class GoldSpec(SetSpec):
    """Gold in-domain pairs (``gold`` in params.yaml): the yardstick of every judge, read by the
    teacher and evaluate stages; ``path`` null leaves the figures out."""

    bootstrap_resamples: int = Field(gt=0)
    confidence_level: float = Field(gt=0.0, lt=1.0)
    seed: int


class LabelledSpec(SetSpec):
    """A labelled set as a training source: its entry plus how much it counts."""

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


@dataclass(frozen=True)
class Skipped:
    name: str
    kind: str
    path: str | None
    reason: str


def load_sets(
    specs: Mapping[str, SetSpec],
    root: Path = Path("."),
    loaders: Registry[LoaderFactory] = LOADERS,
    section: str | None = None,
) -> dict[str, Benchmark | Skipped]:
    """Load every configured set with ``loaders``, in params order; derived ones (``hard``) after
    their base. Errors name each set's params key, ``<section>.<name>``."""
    where = {name: f"{section}.{name}" if section else name for name in specs}
    entries = {name: loaders.get(spec.kind, key=f"{where[name]}.kind") for name, spec in specs.items()}
    options = {
        name: entries[name].validate_settings(spec.options, f"{where[name]}.options")
        for name, spec in specs.items()
    }
    derived = {name for name, entry in entries.items() if entry.facts.derived}
    loaded: dict[str, Benchmark | Skipped] = {}
    for name, spec in specs.items():
        if name not in derived:
            loaded[name] = _load_file(name, spec, entries[name], options[name], root)
    for name, spec in specs.items():
        if name in derived:
            loaded[name] = _load_derived(name, spec, entries[name], options[name], loaded, where[name])
    for name, result in loaded.items():
        if isinstance(result, Benchmark):
            _check_keys(result)
            result = _check_classes(result)
            loaded[name] = result
        if isinstance(result, Skipped):
            log.warning("skipping %s: %s", where[name], result.reason)
        else:
            log.info("%s: %d pairs, %d contradictions", where[name], len(result.pairs), sum(result.labels))
    return {name: loaded[name] for name in specs}


def _load_file(name: str, spec: SetSpec, entry: Entry, options, root: Path) -> Benchmark | Skipped:
    if not spec.path:
        return Skipped(name, spec.kind, spec.path, "no path configured")
    path = Path(spec.path).expanduser()
    if not path.is_absolute():
        path = root / path
    if not path.exists():
        return Skipped(name, spec.kind, spec.path, f"file not found: {spec.path}")
    if path.is_dir() and not entry.facts.reads_folders:
        raise InputFormatError(str(path), f"is a folder; the {spec.kind} loader reads a file")
    return Benchmark(name, spec.kind, spec.path, entry.factory(path, options))


def _load_derived(
    name: str, spec: SetSpec, entry: Entry, options, loaded: dict, key: str
) -> Benchmark | Skipped:
    base = loaded.get(options.base)
    if base is None:
        raise ParamsError(f"{key}.options.base: {options.base!r} is not a file benchmark")
    if isinstance(base, Skipped):
        return Skipped(name, spec.kind, base.path, f"base benchmark {options.base!r} skipped: {base.reason}")
    return Benchmark(name, spec.kind, base.path, entry.factory(base, options))


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
