"""Reading rows of CSV and JSON Lines benchmark files, with file and line in every error."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import Field

from scicon.errors import InputFormatError
from scicon.evaluate.benchmarks import BenchmarkPair, LoaderOptions


def line_error(path: Path, line: int, message: str) -> InputFormatError:
    return InputFormatError(str(path), message, line)


def text(value: object, path: Path, line: int, column: str) -> str:
    """A non-empty string field, stripped."""
    if not isinstance(value, str) or not value.strip():
        raise line_error(path, line, f"column {column!r} is missing or empty")
    return value.strip()


def line_key(path: Path, line: int) -> str:
    """A pair's key: the file's name (not its path, which differs between machines) and line."""
    return f"{path.name}:{line}"


def read_csv(path: Path, delimiter: str = ",") -> Iterator[tuple[int, dict]]:
    """Rows of a CSV file as (line number, dict); the line is where the row starts."""
    with open(path, encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        start = 2
        for row in reader:
            yield start, row
            start = reader.line_num + 1


def read_json_lines(path: Path) -> Iterator[tuple[int, dict]]:
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise line_error(path, number, f"not valid JSON: {error.msg}") from error
            if not isinstance(row, dict):
                raise line_error(path, number, "expected a JSON object")
            yield number, row


class ColumnOptions(LoaderOptions):
    sentence1: str = Field(min_length=1, description="column of the premise")
    sentence2: str = Field(min_length=1, description="column of the hypothesis")
    label: str = Field(min_length=1, description="column of the label")
    contradiction: tuple[str, ...] = Field(min_length=1, description="label values meaning contradiction")
    group: str | None = Field(description="column grouping pairs, e.g. the premise (null: none)")


def pairs_from_columns(
    rows: Iterable[tuple[int, dict]], path: Path, options: ColumnOptions
) -> list[BenchmarkPair]:
    contradiction = set(options.contradiction)
    pairs = []
    for line, row in rows:
        if options.label not in row or row[options.label] is None:
            raise line_error(path, line, f"label column {options.label!r} is missing")
        group = None
        if options.group is not None:
            if row.get(options.group) is None:
                raise line_error(path, line, f"group column {options.group!r} is missing")
            group = str(row[options.group]).strip()
        pairs.append(
            BenchmarkPair(
                sentence1=text(row.get(options.sentence1), path, line, options.sentence1),
                sentence2=text(row.get(options.sentence2), path, line, options.sentence2),
                label=int(str(row[options.label]).strip() in contradiction),
                key=line_key(path, line),
                group=group,
            )
        )
    return pairs


NLI_LABELS = ("entailment", "neutral", "contradiction")


def nli_label_of(value: object, mapping: dict[str, str], path: Path, line: int, column: str) -> str:
    """The three-way label a raw label value stands for, through ``mapping`` (raw -> NLI label)."""
    raw = str(value).strip() if value is not None else ""
    if raw not in mapping:
        known = ", ".join(sorted(mapping))
        raise line_error(path, line, f"{column} {raw!r} is not a known label ({known})")
    return mapping[raw]


def three_way_pair(
    premise: str, hypothesis: str, nli_label: str, key: str, group: str | None
) -> BenchmarkPair:
    """A pair whose binary label (contradiction or not) follows from its three-way label."""
    return BenchmarkPair(premise, hypothesis, int(nli_label == "contradiction"), key, group, nli_label)
