"""Any CSV (or other delimited) file of sentence pairs, with the columns named in the options."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from scicon.readers import LOADERS
from scicon.readers.rows import ColumnOptions, pairs_from_columns, read_csv
from scicon.records.benchmark import BenchmarkPair


class CsvOptions(ColumnOptions):
    delimiter: str = Field(min_length=1, max_length=1, description="field delimiter")


@LOADERS.register(
    "csv",
    keys="`<file name>:<line>`",
    groups="the `group` column, else the hypothesis",
    settings=CsvOptions,
    description="any delimited file with a header; the options name the columns and the contradiction labels",
)
def load_csv(path: Path, options: CsvOptions) -> list[BenchmarkPair]:
    return pairs_from_columns(read_csv(path, options.delimiter), path, options)
