"""Lexical overlap: Jaccard similarity of the two sentences' content words (:mod:`scicon.lexical`).

Two sentences without content words score 0. The direction is not
fixed in advance: a mutated sentence shares most words with its original (SciCon's
contradictions overlap more), while an unrelated claim shares few; the baseline is
reported both ways.
"""

from __future__ import annotations

from collections.abc import Sequence

from scicon.evaluate.baselines import BASELINES
from scicon.lexical import jaccard
from scicon.records.benchmark import BenchmarkPair


def overlap_scores(pairs: Sequence[BenchmarkPair]) -> list[float]:
    return [jaccard(p.sentence1, p.sentence2) for p in pairs]


@BASELINES.register(
    "overlap", two_sided=True, description="Jaccard similarity of the content words of the two sentences"
)
def overlap(settings: None, seed: int):
    return overlap_scores
