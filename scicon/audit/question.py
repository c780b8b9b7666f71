"""What the annotators are asked, the answers they may give, and how an answer is read.

The EvoNLI paper's experts labelled each pair, blinded to the algorithmic label, as a
contradiction or not (section 5.1); SciCon's label is binary in the same way, so the
question is binary too. "Unsure" is offered so that nobody is forced to guess: an unsure
answer is no judgment — it counts neither for nor against the algorithmic label — and
it is reported per annotator and as a conservative figure that counts it as disagreement.
"""

from __future__ import annotations

import re
from enum import StrEnum

QUESTION = "Do these two sentences contradict each other?"

GUIDANCE = (
    "Both sentences are about the same clinical study. Answer 'contradiction' when they cannot "
    "both be true of that study: one states the opposite of the other (a finding reversed, an effect "
    "denied, a different number for the same quantity, ...). Answer 'not a contradiction' when both "
    "can be true at once, including when one merely adds, omits or rephrases information, or when "
    "they are about different things. Judge only what the sentences say; do not look anything up. "
    "Use 'unsure' only when you cannot decide, and say why in the comment."
)


class Answer(StrEnum):
    """An annotator's answer; the value is what the blinded files and Label Studio show."""

    CONTRADICTION = "contradiction"
    NOT_CONTRADICTION = "not a contradiction"
    UNSURE = "unsure"

    @property
    def label(self) -> int | None:
        """SciCon's label for this answer (1: contradiction, 0: not); None for unsure."""
        return {Answer.CONTRADICTION: 1, Answer.NOT_CONTRADICTION: 0}.get(self)


# Spellings a spreadsheet user is likely to type for the same answer.
_SPELLINGS = {
    "contradiction": Answer.CONTRADICTION,
    "contradictory": Answer.CONTRADICTION,
    "not a contradiction": Answer.NOT_CONTRADICTION,
    "not contradiction": Answer.NOT_CONTRADICTION,
    "no contradiction": Answer.NOT_CONTRADICTION,
    "non contradiction": Answer.NOT_CONTRADICTION,
    "unsure": Answer.UNSURE,
}
ACCEPTED = tuple(answer.value for answer in Answer)


def parse_answer(text: str) -> Answer | None:
    """The answer written as ``text`` (case, spaces, '_' and '-' ignored); None when blank.

    Raises ValueError for anything else, so the caller can name the file and row.
    """
    normalised = re.sub(r"[\s_\-]+", " ", text).strip().lower()
    if not normalised:
        return None
    if normalised not in _SPELLINGS:
        raise ValueError(f"unknown answer {text!r} (accepted: {', '.join(repr(a) for a in ACCEPTED)})")
    return _SPELLINGS[normalised]
