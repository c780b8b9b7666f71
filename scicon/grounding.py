"""Does an edit land on what the other sentence speaks to?

Negating a part of a conclusion that its result never mentions makes a neutral pair, not
a contradiction ("c-kit expression cannot be used as an early diagnostic indicator"
against "c-kit expression was observed in 82 % of specimens"). An edit of a sentence is
*grounded* in the other sentence of its pair when every changed word sits in a clause of
the edited sentence that shares a content word or a number with the other sentence, and
within ``window`` words of such a shared word. Words match when they are equal or share
their first ``stem_length`` letters ("reduced" / "reduction"), so no tagger is needed.
"""

from __future__ import annotations

from pydantic import Field
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from scicon.params import Section
from scicon.textdiff import word_diff, words

# Words that end one clause and start the next ("X fell, whereas Y rose").
CLAUSE_BREAKS = frozenset({",", ";", ":", "(", ")", "whereas", "while", "but", "although", "however"})
# Frequent in every abstract, so sharing them says nothing about the topic.
GENERIC_WORDS = frozenset(
    {"patients", "patient", "study", "studies", "results", "group", "groups", "treatment", "significant",
     "significantly", "compared", "data", "effect", "effects", "use", "used", "showed", "found"}
)  # fmt: skip


class Grounding(Section):
    """How close to the shared content an edit must land (``candidates.grounding``)."""

    window: int = Field(
        ge=0, description="changed words at most this many words from a word the other sentence shares"
    )
    stem_length: int = Field(gt=0, description="letters two content words must share to match")


def _anchor_words(text: str) -> list[tuple[int, str]]:
    """The words (with their positions) an edit may be grounded on: numbers, and words of three
    letters or more that are neither stop words nor :data:`GENERIC_WORDS`. Stricter than content
    words (:mod:`scicon.lexical`): what places an edit, not what two sentences share."""
    found = []
    for position, word in enumerate(words(text)):
        lower = word.lower()
        if any(c.isdigit() for c in lower) or (
            len(lower) >= 3
            and lower.isalpha()
            and lower not in ENGLISH_STOP_WORDS
            and lower not in GENERIC_WORDS
        ):
            found.append((position, lower))
    return found


def _matches(word: str, others: set[str], stem_length: int) -> bool:
    if word in others:
        return True
    if len(word) < stem_length or not word.isalpha():
        return False
    return any(len(other) >= stem_length and other[:stem_length] == word[:stem_length] for other in others)


def clause_of_each_word(text: str) -> list[int]:
    """A clause number per word of ``text``; a break word starts a new clause."""
    clause, out = 0, []
    for word in words(text):
        if word.lower() in CLAUSE_BREAKS:
            clause += 1
        out.append(clause)
    return out


def shared_positions(sentence: str, other: str, grounding: Grounding) -> list[int]:
    """Positions of the words of ``sentence`` that the other sentence also has."""
    theirs = {word for _, word in _anchor_words(other)}
    return [
        position
        for position, word in _anchor_words(sentence)
        if _matches(word, theirs, grounding.stem_length)
    ]


def is_grounded(original: str, edited: str, other: str, grounding: Grounding) -> bool:
    """Whether every word ``edited`` changes in ``original`` lies near content ``other`` shares."""
    edits = word_diff(original, edited)
    if not edits:
        return False
    anchors = shared_positions(original, other, grounding)
    if not anchors:
        return False
    clauses = clause_of_each_word(original)
    last = len(clauses) - 1
    for edit in edits:
        span = max(len(edit.original.split()), 1)
        changed = range(edit.position, min(edit.position + span, last + 1)) or [min(edit.position, last)]
        for position in changed:
            position = min(position, last)
            if not any(
                clauses[anchor] == clauses[position] and abs(anchor - position) <= grounding.window
                for anchor in anchors
            ):
                return False
    return True
