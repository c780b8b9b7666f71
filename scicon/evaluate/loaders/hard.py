"""A "hard" variant: another benchmark with negation words removed from both sentences.

This is how the paper builds Hard-Cardio (section 4.1): without the surface cue, a
model that only learnt "a negation word means contradiction" drops to chance. Keys
and groups are the base benchmark's, so the two can be compared pair by pair.
"""

from __future__ import annotations

from pydantic import Field

from scicon.evaluate.loaders import BENCHMARK_LOADERS
from scicon.negation import NEGATION_WORDS, remove_negation
from scicon.readers import LoaderOptions
from scicon.records.benchmark import Benchmark, BenchmarkPair


class HardOptions(LoaderOptions):
    base: str = Field(min_length=1, description="name of the benchmark to harden")
    negation_words: tuple[str, ...] | None = Field(
        description="words to remove (null: scicon.negation's list)"
    )


def harden(pairs: list[BenchmarkPair], words: frozenset[str] = NEGATION_WORDS) -> list[BenchmarkPair]:
    """The pairs with negation words removed from both sentences (Hard-Cardio's construction)."""
    return [
        BenchmarkPair(
            remove_negation(p.sentence1, words), remove_negation(p.sentence2, words), p.label, p.key, p.group
        )
        for p in pairs
    ]


@BENCHMARK_LOADERS.register(
    "hard",
    keys="as its base",
    groups="as its base",
    settings=HardOptions,
    derived=True,
    description="the benchmark named by options.base, negation words removed from both sentences",
)
def load_hard(base: Benchmark, options: HardOptions) -> list[BenchmarkPair]:
    words = frozenset(w.lower() for w in options.negation_words) if options.negation_words else NEGATION_WORDS
    return harden(base.pairs, words)
