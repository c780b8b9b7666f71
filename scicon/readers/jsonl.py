"""Any JSON Lines file of sentence pairs, with the columns named in the options."""

from __future__ import annotations

from pathlib import Path

from scicon.io import read_json_objects
from scicon.readers import LOADERS
from scicon.readers.rows import ColumnOptions, pairs_from_columns
from scicon.records.benchmark import BenchmarkPair


@LOADERS.register(
    "jsonl",
    keys="`<file name>:<line>`",
    groups="the `group` column, else the hypothesis",
    settings=ColumnOptions,
    description="any JSON Lines file; the options name the columns and the contradiction labels",
)
def load_jsonl(path: Path, options: ColumnOptions) -> list[BenchmarkPair]:
    return pairs_from_columns(read_json_objects(path), path, options)
