"""Lexical overlap: Jaccard similarity of the two sentences' content words.

Content words are the lower-cased word tokens that are not English stop words
(scikit-learn's list, which also holds "not", "no", "never": negation does not count
as overlap). Two sentences without content words score 0. The direction is not
fixed in advance: a mutated sentence shares most words with its original (SciCon's
contradictions overlap more), while an unrelated claim shares few; the baseline is
reported both ways.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from scicon.evaluate.baselines import BASELINES
from scicon.records.benchmark import BenchmarkPair

_WORD = re.compile(r"\w+")


def content_words(text: str) -> frozenset[str]:
    return frozenset(word for word in _WORD.findall(text.lower()) if word not in ENGLISH_STOP_WORDS)


def jaccard(first: str, second: str) -> float:
    a, b = content_words(first), content_words(second)
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def overlap_scores(pairs: Sequence[BenchmarkPair]) -> list[float]:
    return [jaccard(p.sentence1, p.sentence2) for p in pairs]


@BASELINES.register(
    "overlap", two_sided=True, description="Jaccard similarity of the content words of the two sentences"
)
def overlap(settings: None, seed: int):
    return overlap_scores
