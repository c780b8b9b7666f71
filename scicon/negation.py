"""Negation cues, shared by the mutation taxonomy and the "hard" benchmark variants.

One list serves both on purpose: the words whose insertion or removal makes a
"negation/polarity" mutation (paper appendix D) are the same surface cues that a
"hard" benchmark removes so that a model cannot rely on them (how the paper builds
Hard-Cardio, section 4.1).
"""

from __future__ import annotations

import re

# Free-standing negation words.
NEGATION_WORDS = frozenset({"not", "no", "never", "neither", "nor", "none", "nothing", "nobody", "cannot"})

# Contracted negations and what is left of the verb once the negation is removed.
NEGATED_CONTRACTIONS = {
    "can't": "can",
    "won't": "will",
    "shan't": "shall",
    "ain't": "is",
}

_CONTRACTION = re.compile(r"\b(\w+)n't\b", re.IGNORECASE)
_CANNOT = re.compile(r"\bcannot\b", re.IGNORECASE)


def is_negation(word: str) -> bool:
    lowered = word.lower()
    return lowered in NEGATION_WORDS or lowered.endswith("n't")


def remove_negation(text: str, words: frozenset[str] = NEGATION_WORDS) -> str:
    """``text`` with negation words dropped and negated contractions reduced to their verb.

    "does not reduce" becomes "does reduce", "doesn't" becomes "does", "cannot" becomes
    "can"; spacing is tidied so no double spaces or space before punctuation remain.
    """

    def contraction(match: re.Match) -> str:
        whole = match.group(0)
        if whole.lower() in NEGATED_CONTRACTIONS:
            replacement = NEGATED_CONTRACTIONS[whole.lower()]
            return replacement.capitalize() if whole[0].isupper() else replacement
        return match.group(1)

    original = text
    text = _CONTRACTION.sub(contraction, text)
    if "cannot" in words:
        text = _CANNOT.sub(lambda m: "Can" if m.group(0)[0].isupper() else "can", text)
    pattern = re.compile(
        r"\b(?:" + "|".join(sorted(map(re.escape, words - {"cannot"}))) + r")\b", re.IGNORECASE
    )
    text = pattern.sub("", text)
    text = re.sub(r"\s{2,}", " ", text)
    text = re.sub(r"\s+([.,;:!?)])", r"\1", text).strip()
    if original[:1].isupper() and text[:1].islower():
        text = text[0].upper() + text[1:]
    return text
