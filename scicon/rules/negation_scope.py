"""Negation scope: whether a word of a sentence stands under a negation.

A rule edit that flips a word under negation is no contradiction ("did not yield
higher" -> "did not yield lower"), and a clause that is negative already must not be
negated again. The cue words are the ``scope`` and ``clause`` subsets of the negation
vocabulary (:mod:`scicon.negation`); a clause ends at a clause break or a contrastive
conjunction, and a reported claim ("suggest that ...") is a clause of its own.
"""

from __future__ import annotations

from scicon.negation import negation_words
from scicon.rules.tagging import Analysis, Token

SCOPE_NEGATORS = negation_words("scope")
CLAUSE_NEGATORS = negation_words("clause")
_CLAUSE_START = frozenset({";", ":", ",", "but", "whereas", "while", "although"})


def negated_clause(analysis: Analysis, i: int) -> bool:
    """Whether a negator precedes token ``i`` in its clause. Swapping a scalar word under
    negation ("did not yield higher" -> "did not yield lower") is not a contradiction."""
    for token in reversed(analysis.tokens[:i]):
        if token.lower in _CLAUSE_START or (token.lower == "that" and token.tag == "IN"):
            return False
        if token.lower in SCOPE_NEGATORS:
            return True
    return False


def negated_verb(analysis: Analysis, verb: Token) -> bool:
    """ "cannot", "was not", "had no": the finite ``verb`` is negated where it stands."""
    if verb.lower in ("cannot", "can't"):
        return True
    following = analysis.neighbour(verb.i, 1, skip_adverbs=True)
    return following is not None and following.lower in CLAUSE_NEGATORS


def negative_subject(analysis: Analysis, verb: int) -> bool:
    """ "No serious adverse events were reported": the clause is negative already."""
    for t in reversed(analysis.tokens[:verb]):
        if t.lower in (";", ":") or (t.lower == "that" and t.tag == "IN"):
            return False
        # "No serious events were", "None of the fetuses, including 15, had", "not all children had"
        if t.lower in CLAUSE_NEGATORS:
            return True
    return False
