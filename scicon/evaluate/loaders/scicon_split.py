"""A SciCon split (JSON Lines of :class:`~scicon.records.dataset.Example`), e.g. the test split.

Keys are the examples' ids; pairs are grouped by abstract (PMID).
"""

from __future__ import annotations

from pathlib import Path

from scicon.evaluate.loaders import BENCHMARK_LOADERS
from scicon.io import read_jsonl
from scicon.records.benchmark import BenchmarkPair
from scicon.records.dataset import Example


@BENCHMARK_LOADERS.register(
    "scicon",
    keys="`<example_id>`",
    groups="abstract (PMID)",
    description="a SciCon split (JSON Lines of examples), e.g. data/scicon/test.jsonl",
)
def load_scicon_split(path: Path, options: None) -> list[BenchmarkPair]:
    return [
        BenchmarkPair(e.sentence1, e.sentence2, e.label, key=e.example_id, group=e.pmid)
        for e in read_jsonl(path, Example)
    ]
