"""Benchmark loaders: every benchmark becomes sentence pairs with a binary label.

A benchmark in params.yaml names a loader ``kind`` from :data:`LOADERS`, a ``path``
and the loader's ``options``. Label 1 is contradiction, 0 is everything else
(entailment and neutral merged, as the paper does after Makhervaks et al., 2023).

A benchmark whose file is absent, or that ends up without both classes, is
*skipped* with the reason, never scored as zero. A malformed row stops the stage
with the file and line named.

Kinds:

- ``healthver``: HealthVer CSV (``evidence``, ``claim``, ``label`` in
  Supports/Refutes/Neutral); Refutes is a contradiction. Pair: (evidence, claim).
- ``mednli``: MedNLI JSON Lines (``sentence1``, ``sentence2``, ``gold_label`` in
  entailment/neutral/contradiction, as in ``mli_test_v1.jsonl``). Option
  ``specialty`` keeps a clinical-specialty subset by keyword (see
  :mod:`scicon.evaluate.specialties`), or ``keywords`` gives a custom list.
- ``mancon``: ManConCorpus XML (Alamri & Stevenson, 2016), the paper's Cardio
  benchmark: ``CLAIM`` elements whose ``QUESTION`` attribute names the review
  question and whose ``ASSERTION`` is ``YS`` or ``NO``. Two claims answering the same
  question form a pair: opposite assertions are a contradiction, equal ones not.
- ``hard``: the benchmark named by option ``base`` with negation words removed from
  both sentences (how the paper builds Hard-Cardio).
- ``scicon``: SciCon JSON Lines (:class:`~scicon.records.Example`), e.g. the test split.
- ``jsonl`` / ``csv``: any file, with options naming the two sentence columns and
  the label column, and listing the label values that mean contradiction.
"""

from __future__ import annotations

import csv
import itertools
import json
import logging
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from scicon.errors import InputFormatError, ParamsError
from scicon.evaluate.params import BenchmarkSpec
from scicon.evaluate.specialties import SPECIALTY_KEYWORDS, keyword_pattern, specialty_pattern
from scicon.io import read_jsonl
from scicon.negation import NEGATION_WORDS, remove_negation
from scicon.records.dataset import Example

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BenchmarkPair:
    sentence1: str
    sentence2: str
    label: int  # 1: contradiction
    origin: str  # file and line (or element) it came from


@dataclass
class Benchmark:
    name: str
    kind: str
    path: str | None
    pairs: list[BenchmarkPair]

    @property
    def labels(self) -> list[int]:
        return [pair.label for pair in self.pairs]


@dataclass(frozen=True)
class Skipped:
    name: str
    kind: str
    path: str | None
    reason: str


class _Options(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class NoOptions(_Options):
    pass


class HealthVerOptions(_Options):
    contradiction: tuple[str, ...] = ("Refutes",)


class MedNliOptions(_Options):
    specialty: str | None = None
    keywords: tuple[str, ...] | None = None

    @field_validator("specialty")
    @classmethod
    def _known(cls, specialty: str | None) -> str | None:
        if specialty is not None and specialty not in SPECIALTY_KEYWORDS:
            raise ValueError(f"unknown specialty {specialty!r} (known: {', '.join(SPECIALTY_KEYWORDS)})")
        return specialty


class HardOptions(_Options):
    base: str = Field(min_length=1)
    negation_words: tuple[str, ...] | None = None


class ColumnOptions(_Options):
    sentence1: str = "sentence1"
    sentence2: str = "sentence2"
    label: str = "label"
    contradiction: tuple[str, ...] = ("contradiction",)
    delimiter: str = ","


Loader = Callable[[Path, _Options], list[BenchmarkPair]]


@dataclass(frozen=True)
class LoaderKind:
    options: type[_Options]
    load: Loader | None  # None: derived from another benchmark (hard)
    needs_file: bool = True


def _line_error(path: Path, line: int, message: str) -> InputFormatError:
    return InputFormatError(str(path), message, line)


def _text(value: object, path: Path, line: int, column: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _line_error(path, line, f"column {column!r} is missing or empty")
    return value.strip()


def _read_csv(path: Path, delimiter: str = ","):
    """Rows of a CSV file as (line number, dict); the line is where the row starts."""
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        start = 2
        for row in reader:
            yield start, row
            start = reader.line_num + 1


def _read_json_lines(path: Path):
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise _line_error(path, number, f"not valid JSON: {error.msg}") from error
            if not isinstance(row, dict):
                raise _line_error(path, number, "expected a JSON object")
            yield number, row


def load_healthver(path: Path, options: HealthVerOptions) -> list[BenchmarkPair]:
    pairs = []
    for line, row in _read_csv(path):
        label = _text(row.get("label"), path, line, "label")
        if label not in ("Supports", "Refutes", "Neutral"):
            raise _line_error(path, line, f"unknown HealthVer label {label!r} (Supports, Refutes, Neutral)")
        pairs.append(
            BenchmarkPair(
                sentence1=_text(row.get("evidence"), path, line, "evidence"),
                sentence2=_text(row.get("claim"), path, line, "claim"),
                label=int(label in options.contradiction),
                origin=f"{path}:{line}",
            )
        )
    return pairs


_MEDNLI_LABELS = {"contradiction": 1, "entailment": 0, "neutral": 0}


def load_mednli(path: Path, options: MedNliOptions) -> list[BenchmarkPair]:
    pattern = None
    if options.keywords:
        pattern = keyword_pattern(options.keywords)
    elif options.specialty:
        pattern = specialty_pattern(options.specialty)
    pairs = []
    for line, row in _read_json_lines(path):
        label = row.get("gold_label")
        if label not in _MEDNLI_LABELS:
            raise _line_error(path, line, f"gold_label {label!r} is not one of {', '.join(_MEDNLI_LABELS)}")
        first = _text(row.get("sentence1"), path, line, "sentence1")
        second = _text(row.get("sentence2"), path, line, "sentence2")
        if pattern is not None and not (pattern.search(first) or pattern.search(second)):
            continue
        pairs.append(BenchmarkPair(first, second, _MEDNLI_LABELS[label], f"{path}:{line}"))
    return pairs


def load_mancon(path: Path, options: NoOptions) -> list[BenchmarkPair]:
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        line = error.position[0] if error.position else None
        raise InputFormatError(str(path), f"malformed XML: {error}", line) from error
    by_question: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for number, claim in enumerate(root.iter("CLAIM"), start=1):
        where = f"{path}: CLAIM #{number}"
        question = (claim.get("QUESTION") or "").strip()
        assertion = (claim.get("ASSERTION") or "").strip().upper()
        text = " ".join("".join(claim.itertext()).split())
        if not question or assertion not in ("YS", "NO") or not text:
            raise InputFormatError(
                str(path), f"CLAIM #{number} needs a QUESTION, an ASSERTION of YS or NO, and text"
            )
        by_question[question].append((text, assertion, where))
    pairs = []
    for question in sorted(by_question):
        claims = by_question[question]
        for (text1, assertion1, where1), (text2, assertion2, _) in itertools.combinations(claims, 2):
            if text1 == text2:
                continue
            pairs.append(BenchmarkPair(text1, text2, int(assertion1 != assertion2), where1))
    return pairs


def load_scicon_split(path: Path, options: NoOptions) -> list[BenchmarkPair]:
    return [
        BenchmarkPair(e.sentence1, e.sentence2, e.label, f"{path}:{e.example_id}")
        for e in read_jsonl(path, Example)
    ]


def _load_columns(rows, path: Path, options: ColumnOptions) -> list[BenchmarkPair]:
    contradiction = set(options.contradiction)
    pairs = []
    for line, row in rows:
        if options.label not in row or row[options.label] is None:
            raise _line_error(path, line, f"label column {options.label!r} is missing")
        label = str(row[options.label]).strip()
        pairs.append(
            BenchmarkPair(
                sentence1=_text(row.get(options.sentence1), path, line, options.sentence1),
                sentence2=_text(row.get(options.sentence2), path, line, options.sentence2),
                label=int(label in contradiction),
                origin=f"{path}:{line}",
            )
        )
    return pairs


def load_generic_jsonl(path: Path, options: ColumnOptions) -> list[BenchmarkPair]:
    return _load_columns(_read_json_lines(path), path, options)


def load_generic_csv(path: Path, options: ColumnOptions) -> list[BenchmarkPair]:
    return _load_columns(_read_csv(path, options.delimiter), path, options)


def harden(pairs: list[BenchmarkPair], words: frozenset[str] = NEGATION_WORDS) -> list[BenchmarkPair]:
    """The pairs with negation words removed from both sentences (Hard-Cardio's construction)."""
    return [
        BenchmarkPair(
            remove_negation(p.sentence1, words), remove_negation(p.sentence2, words), p.label, p.origin
        )
        for p in pairs
    ]


LOADERS: dict[str, LoaderKind] = {
    "healthver": LoaderKind(HealthVerOptions, load_healthver),
    "mednli": LoaderKind(MedNliOptions, load_mednli),
    "mancon": LoaderKind(NoOptions, load_mancon),
    "scicon": LoaderKind(NoOptions, load_scicon_split),
    "jsonl": LoaderKind(ColumnOptions, load_generic_jsonl),
    "csv": LoaderKind(ColumnOptions, load_generic_csv),
    "hard": LoaderKind(HardOptions, None, needs_file=False),
}


def _options(name: str, spec: BenchmarkSpec) -> _Options:
    if spec.kind not in LOADERS:
        raise ParamsError(
            f"evaluate.benchmarks.{name}.kind: unknown loader {spec.kind!r} (known: {', '.join(LOADERS)})"
        )
    try:
        return LOADERS[spec.kind].options.model_validate(spec.options)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join(str(part) for part in first["loc"])
        raise ParamsError(f"evaluate.benchmarks.{name}.options.{key}: {first['msg']}") from error


def load_benchmarks(
    specs: Mapping[str, BenchmarkSpec], root: Path = Path(".")
) -> dict[str, Benchmark | Skipped]:
    """Load every configured benchmark, in params order; ``hard`` ones after their base."""
    options = {name: _options(name, spec) for name, spec in specs.items()}
    loaded: dict[str, Benchmark | Skipped] = {}
    for name, spec in specs.items():
        if spec.kind != "hard":
            loaded[name] = _load_file(name, spec, options[name], root)
    for name, spec in specs.items():
        if spec.kind == "hard":
            loaded[name] = _load_hard(name, spec, options[name], loaded)
    for name, result in loaded.items():
        if isinstance(result, Benchmark):
            result = _check_classes(result)
            loaded[name] = result
        if isinstance(result, Skipped):
            log.warning("evaluate: skipping %s: %s", name, result.reason)
        else:
            log.info("evaluate: %s: %d pairs, %d contradictions", name, len(result.pairs), sum(result.labels))
    return {name: loaded[name] for name in specs}


def _load_file(name: str, spec: BenchmarkSpec, options: _Options, root: Path) -> Benchmark | Skipped:
    if not spec.path:
        return Skipped(name, spec.kind, spec.path, "no path configured")
    path = Path(spec.path).expanduser()
    if not path.is_absolute():
        path = root / path
    if not path.is_file():
        return Skipped(name, spec.kind, spec.path, f"file not found: {spec.path}")
    return Benchmark(name, spec.kind, spec.path, LOADERS[spec.kind].load(path, options))


def _load_hard(name: str, spec: BenchmarkSpec, options: HardOptions, loaded: dict) -> Benchmark | Skipped:
    base = loaded.get(options.base)
    if base is None:
        raise ParamsError(
            f"evaluate.benchmarks.{name}.options.base: {options.base!r} is not a file benchmark"
        )
    if isinstance(base, Skipped):
        return Skipped(name, spec.kind, base.path, f"base benchmark {options.base!r} skipped: {base.reason}")
    words = frozenset(w.lower() for w in options.negation_words) if options.negation_words else NEGATION_WORDS
    return Benchmark(name, spec.kind, base.path, harden(base.pairs, words))


def _check_classes(benchmark: Benchmark) -> Benchmark | Skipped:
    labels = set(benchmark.labels)
    if labels == {0, 1}:
        return benchmark
    found = "no pairs" if not labels else f"only label {labels.pop()}"
    return Skipped(
        benchmark.name, benchmark.kind, benchmark.path, f"needs both classes for ROC-AUC; found {found}"
    )
