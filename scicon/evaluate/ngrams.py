"""Word n-gram overlap between SciCon and a benchmark: the paper's contamination check.

Section 4.3 of the paper reports 5-gram overlap (<2% for MedNLI, <3% for Cardio) as
evidence of no contamination and 3-gram overlap (29-57%) as shared terminology.
Here the overlap is the fraction of a benchmark's distinct word n-grams (lower-cased,
from both sentences) that also occur anywhere in SciCon's training split.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD = re.compile(r"\w+")


def ngrams(text: str, n: int) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def ngram_set(texts: Iterable[str], n: int) -> set[tuple[str, ...]]:
    found: set[tuple[str, ...]] = set()
    for text in texts:
        found |= ngrams(text, n)
    return found


def overlap(benchmark_texts: Iterable[str], reference: set[tuple[str, ...]], n: int) -> float:
    """Fraction of the benchmark's distinct n-grams present in ``reference`` (0 when it has none)."""
    found = ngram_set(benchmark_texts, n)
    return len(found & reference) / len(found) if found else 0.0
