"""Hidden gold controls: how many of a batch's are contradictions, and an annotator's accuracy on them.

A batch hides gold items among the items to judge; an annotator's answers to them, against
their gold labels, say whether the batch can be trusted. What the labels are for is telling
contradictions from the rest, so the score that decides is contradiction vs not, and a share of
each batch's controls is contradictions even where the gold set has few.
"""

from __future__ import annotations

from collections.abc import Iterable

from scicon.annotation.intervals import SHARE_DIGITS, share_with_interval

CONTRADICTION = "contradiction"


def control_counts(wanted: int, contradictions: int, others: int) -> tuple[int, int]:
    """Of ``wanted`` controls, how many are contradictions and how many other gold items, given
    how many of each the gold set has."""
    # A third, rounded up rather than down: a batch of one or two controls still hides a
    # contradiction, the judgement the score is for, and a batch of four or five hides two.
    chosen = min(contradictions, -(-wanted // 3))
    return chosen, min(others, wanted - chosen)


def contradiction_or_not(answers: Iterable[tuple[str, str]]) -> list[tuple[bool, bool]]:
    """(given, gold) label pairs as contradiction or not: the judgement the labels are for."""
    return [(given == CONTRADICTION, gold == CONTRADICTION) for given, gold in answers]


def control_accuracy(
    answers: Iterable[tuple[object, object]], level: float, digits: int = SHARE_DIGITS
) -> dict:
    """The (given, key) answer pairs that agree, as a share with its Wilson interval."""
    answers = list(answers)
    return share_with_interval(sum(given == key for given, key in answers), len(answers), level, digits)
