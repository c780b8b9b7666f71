"""A benchmark with its two sentences swapped: whether a classifier reads a contradiction the
same way whichever sentence comes first. Contradiction is symmetric, so a judge that learnt it
scores both orders alike; keys and groups are the base benchmark's, so the two can be compared
pair by pair.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import Field

from scicon.evaluate.loaders import BENCHMARK_LOADERS
from scicon.readers import LoaderOptions
from scicon.records.benchmark import Benchmark, BenchmarkPair


class SwappedOptions(LoaderOptions):
    base: str = Field(min_length=1, description="name of the benchmark whose sentences are swapped")


@BENCHMARK_LOADERS.register(
    "swapped",
    keys="as its base",
    groups="as its base",
    settings=SwappedOptions,
    derived=True,
    description="the benchmark named by options.base with sentence1 and sentence2 swapped",
)
def load_swapped(base: Benchmark, options: SwappedOptions) -> list[BenchmarkPair]:
    return [replace(pair, sentence1=pair.sentence2, sentence2=pair.sentence1) for pair in base.pairs]
