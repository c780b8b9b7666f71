"""The negation vocabulary, and negation removal for the "hard" benchmark variants.

Every negation cue the project uses lives in one table, ``vocabulary/negation.tsv``,
where each word names the subsets it belongs to (its header explains each subset and
why two of them differ). Users ask for their subset with :func:`negation_words`: the
mutation taxonomy and the hard benchmarks use ``free_standing``, the rule operators
``verbal``, ``clause`` and ``scope``. This module imports nothing from
:mod:`scicon.rules`, so the build and evaluate stages can read the vocabulary without
depending on the rule operators.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from scicon.errors import InputFormatError
from scicon.tsv import read_table

__data__ = ("vocabulary/negation.tsv",)

VOCABULARY = Path(__file__).parent / "vocabulary" / "negation.tsv"
SUBSETS = ("free_standing", "verbal", "clause", "scope", "lexical", "contraction")


@functools.cache
def _vocabulary() -> dict[str, tuple[frozenset[str], str | None]]:
    """Each word with its subsets and what is left of it once the negation is removed."""
    words: dict[str, tuple[frozenset[str], str | None]] = {}
    for row in read_table(VOCABULARY):
        word = row.fields["word"]
        subsets = frozenset(name.strip() for name in row.fields["subsets"].split(","))
        unknown = sorted(subsets - set(SUBSETS))
        if unknown:
            raise InputFormatError(
                str(VOCABULARY),
                f"unknown subset {', '.join(unknown)} (known: {', '.join(SUBSETS)})",
                row.line,
            )
        if word != word.lower() or word in words:
            raise InputFormatError(str(VOCABULARY), f"{word!r} must be lower case and listed once", row.line)
        positive = row.fields["positive"]
        words[word] = (subsets, None if positive == "-" else positive)
    return words


@functools.cache
def negation_words(subset: str) -> frozenset[str]:
    """The words of one named subset of the vocabulary (see the table's header)."""
    if subset not in SUBSETS:
        raise ValueError(f"unknown negation subset {subset!r} (known: {', '.join(SUBSETS)})")
    return frozenset(word for word, (subsets, _) in _vocabulary().items() if subset in subsets)


def positive_form(word: str) -> str | None:
    """What ``word`` becomes when its negation is removed ("cannot" -> "can"); None: it is deleted."""
    entry = _vocabulary().get(word.lower())
    return entry[1] if entry else None


# Free-standing negation words.
NEGATION_WORDS = negation_words("free_standing")

# Contracted negations and what is left of the verb once the negation is removed.
NEGATED_CONTRACTIONS = {word: positive_form(word) for word in sorted(negation_words("contraction"))}

_CONTRACTION = re.compile(r"\b(\w+)n't\b", re.IGNORECASE)


def is_negation(word: str) -> bool:
    lowered = word.lower()
    return lowered in NEGATION_WORDS or lowered.endswith("n't")


def _capitalised_like(template: str, word: str) -> str:
    return word.capitalize() if template[0].isupper() else word


def remove_negation(text: str, words: frozenset[str] = NEGATION_WORDS) -> str:
    """``text`` with negation words dropped and negated contractions reduced to their verb.

    "does not reduce" becomes "does reduce", "doesn't" becomes "does", "cannot" becomes
    "can" (a word with a positive form in the vocabulary is replaced by it, any other
    is deleted); spacing is tidied so no double spaces or space before punctuation remain.
    """

    def contraction(match: re.Match) -> str:
        whole = match.group(0)
        if whole.lower() in NEGATED_CONTRACTIONS:
            return _capitalised_like(whole, NEGATED_CONTRACTIONS[whole.lower()])
        return match.group(1)

    original = text
    text = _CONTRACTION.sub(contraction, text)
    replaced = {word.lower(): positive_form(word) for word in words if positive_form(word) is not None}
    if replaced:
        pattern = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, replaced))) + r")\b", re.IGNORECASE)
        text = pattern.sub(lambda m: _capitalised_like(m.group(0), replaced[m.group(0).lower()]), text)
    deleted = [word for word in words if word.lower() not in replaced]
    if deleted:
        pattern = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, deleted))) + r")\b", re.IGNORECASE)
        text = pattern.sub("", text)
    text = re.sub(r"\s{2,}", " ", text)
    text = re.sub(r"\s+([.,;:!?)])", r"\1", text).strip()
    if original[:1].isupper() and text[:1].islower():
        text = text[0].upper() + text[1:]
    return text
