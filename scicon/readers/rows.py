"""Reading rows of CSV benchmark files, with file and line in every error (JSON Lines rows:
:func:`scicon.io.read_json_objects`)."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import Field

from scicon.errors import InputFormatError, InputNotFoundError
from scicon.io import decoded_lines, read_json_objects
from scicon.readers import LoaderOptions
from scicon.records.benchmark import BenchmarkPair


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
    with open(path, "rb") as handle:
        reader = csv.DictReader(decoded_lines(handle, str(path), "utf-8-sig"), delimiter=delimiter)
        start = 2
        try:
            for row in reader:
                yield start, row
                start = reader.line_num + 1
        except csv.Error as error:
            raise line_error(path, reader.line_num, f"not valid CSV ({error})") from error


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


def three_way_pair(
    premise: str, hypothesis: str, nli_label: str, key: str, group: str | None
) -> BenchmarkPair:
    """A pair whose binary label (contradiction or not) follows from its three-way label."""
    return BenchmarkPair(premise, hypothesis, int(nli_label == "contradiction"), key, group, nli_label)


def read_corpus(path: Path, id_field: str) -> dict[str, list[str]]:
    """Documents as sentence lists by id, from a JSON Lines corpus (``abstract``: the sentences)."""
    if not path.is_file():
        raise InputNotFoundError(f"{path}: corpus file not found")
    corpus = {}
    for line, row in read_json_objects(path):
        sentences = row.get("abstract")
        if row.get(id_field) is None or not isinstance(sentences, list):
            raise line_error(path, line, f"expected {id_field!r} and 'abstract' as a list of sentences")
        corpus[str(row[id_field])] = [str(sentence) for sentence in sentences]
    return corpus


def evidence_text(sentences: list[str], indices: list[int], path: Path, line: int) -> str:
    """The evidence sentences of a document, in document order, as one premise."""
    if not indices:
        raise line_error(path, line, "no evidence sentence")
    wrong = [i for i in indices if not isinstance(i, int) or not 0 <= i < len(sentences)]
    if wrong:
        raise line_error(path, line, f"evidence sentence {wrong[0]!r} is not in the abstract")
    return " ".join(sentences[i].strip() for i in sorted(set(indices)))
