"""Benchmarks as the loaders read them (:mod:`scicon.readers`): labelled sentence pairs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BenchmarkPair:
    sentence1: str
    sentence2: str
    label: int  # 1: contradiction
    key: str  # stable across runs and machines, unique within the benchmark
    group: str | None = None  # pairs that share a premise, trial or abstract
    # The three-way NLI label (entailment / neutral / contradiction) where the data has one
    nli_label: str | None = None
    # How the pair was made, where the data says (gold: source, operator, kind, garbled):
    # the strata that judge figures are broken down by
    facets: tuple[tuple[str, str], ...] = ()
    # For an edited sentence2, the sentence it was made from (a judge that reads edits is shown
    # which words changed); None for a pair that is not an edit
    original: str | None = None

    def facet(self, name: str) -> str | None:
        return dict(self.facets).get(name)


@dataclass
class Benchmark:
    name: str
    kind: str
    path: str | None
    pairs: list[BenchmarkPair]

    @property
    def labels(self) -> list[int]:
        return [pair.label for pair in self.pairs]
