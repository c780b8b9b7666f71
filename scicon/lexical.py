"""Content words and their overlap: what two sentences share, word for word.

Content words are the lower-cased word tokens that are not English stop words
(scikit-learn's list, which also holds "not", "no", "never": negation does not count as
overlap). Their Jaccard similarity is the overlap baseline of the evaluate stage and what the
pairs stage's ``overlap`` result selector picks by.
"""

from __future__ import annotations

import re

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

_WORD = re.compile(r"\w+")


def content_words(text: str) -> frozenset[str]:
    return frozenset(word for word in _WORD.findall(text.lower()) if word not in ENGLISH_STOP_WORDS)


def jaccard(first: str, second: str) -> float:
    """Shared content words over all content words of the two; 0 when neither has one."""
    a, b = content_words(first), content_words(second)
    union = a | b
    return len(a & b) / len(union) if union else 0.0
