"""Write SciCon splits as JSON Lines and Parquet, both loadable with Hugging Face `datasets`.

JSONL is the pipeline's own format (validated :class:`Example` records); Parquet is
what the Hub's dataset viewer and ``load_dataset("parquet", ...)`` read fastest.
Both are written atomically, with one fixed schema so an empty split still loads.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from scicon.io import atomic_open, write_jsonl
from scicon.records.dataset import Example

SCHEMA = pa.schema(
    [
        ("example_id", pa.string()),
        ("pmid", pa.string()),
        ("sentence1", pa.string()),
        ("sentence2", pa.string()),
        ("label", pa.int64()),
        ("generator", pa.string()),
        ("operator", pa.string()),
        ("mutation_type", pa.string()),
        ("split", pa.string()),
    ]
)


def write_split(folder: Path, split: str, examples: Sequence[Example]) -> None:
    write_jsonl(folder / f"{split}.jsonl", examples)
    table = pa.Table.from_pylist([example.model_dump(mode="json") for example in examples], schema=SCHEMA)
    with atomic_open(folder / f"{split}.parquet", "wb") as handle:
        pq.write_table(table, handle)
