"""Labelled sentence pairs in a table with a three-way (or two-way) label column.

One loader for the plain forms of labelled NLI data: MultiNLI, SNLI, SICK, ANLI and RTE
as CSV or tab-separated files, and JSON Lines with the same columns. The ``labels``
option maps each raw label onto entailment / neutral / contradiction (a binary file maps
its two values, e.g. ``not_entailment: neutral``); ``where`` keeps rows whose columns
hold given values (SICK's ``SemEval_set``). Rows with a label in ``skip_labels`` are left
out and counted in the log; any other unknown label stops with the file and line.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import Field

from scicon.io import read_json_objects
from scicon.readers import LOADERS
from scicon.readers.labels import LabelMapOptions, log_left_out
from scicon.readers.rows import line_error, line_key, read_csv, text, three_way_pair
from scicon.records.benchmark import BenchmarkPair


class NliTableOptions(LabelMapOptions):
    sentence1: str = Field(min_length=1, description="column of the premise")
    sentence2: str = Field(min_length=1, description="column of the hypothesis")
    label: str = Field(min_length=1, description="column of the label")
    group: str | None = Field(description="column grouping pairs, e.g. the premise (null: the premise)")
    delimiter: str = Field(min_length=1, max_length=1, description="field delimiter of a delimited file")
    where: dict[str, tuple[str, ...]] | None = Field(
        description="keep rows whose column holds one of these values (null: every row)"
    )


def _rows(path: Path, delimiter: str):
    if path.suffix.lower() in {".jsonl", ".ndjson"}:
        return read_json_objects(path)
    return read_csv(path, delimiter)


@LOADERS.register(
    "nli_table",
    keys="`<file name>:<line>`",
    groups="the `group` column, else the premise",
    settings=NliTableOptions,
    description="CSV, TSV or JSON Lines of labelled pairs (MultiNLI, SNLI, SICK, ANLI, RTE); "
    "labels mapped onto entailment / neutral / contradiction",
)
def load_nli_table(path: Path, options: NliTableOptions) -> list[BenchmarkPair]:
    pairs = []
    left_out: Counter[str] = Counter()
    for line, row in _rows(path, options.delimiter):
        if options.where and any(
            str(row.get(column, "")).strip() not in values for column, values in options.where.items()
        ):
            continue
        nli_label = options.nli_label(row.get(options.label), path, line, options.label)
        if nli_label is None:
            left_out[f"label {row.get(options.label)!r}"] += 1
            continue
        premise = text(row.get(options.sentence1), path, line, options.sentence1)
        group = premise
        if options.group is not None:
            if row.get(options.group) is None:
                raise line_error(path, line, f"group column {options.group!r} is missing")
            group = str(row[options.group]).strip()
        hypothesis = text(row.get(options.sentence2), path, line, options.sentence2)
        pairs.append(three_way_pair(premise, hypothesis, nli_label, line_key(path, line), group))
    log_left_out(path, left_out)
    return pairs
