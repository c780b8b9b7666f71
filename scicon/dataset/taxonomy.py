"""Mutation types of generated contradictions, from the word-level diff, by rules.

The taxonomy is appendix D of "Evolutionary Self-Supervised Contradiction
Detection for Biomedical NLI" (four families, fifteen types; its Table 5 reports
42% negation/polarity and 30% causation in SciCon). The paper asks a foundation
model to classify each pair; here every type is a named cue list matched against
the words an edit removed or inserted, so the tagging is free, deterministic and
auditable. Types are tried in the paper's priority order — logical operators
first ("Logical operators take priority when present"), then temporal/spatial,
event-based, and property-based types "when not better explained by the above" —
and a diff that matches no list is ``other``.

Cue lists are data: extend them rather than adding branches. A cue matches a
changed word itself or its regular inflections (-s, -es, -ed, -d, -ing, y→ied/ies).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from scicon.negation import is_negation, negation_words
from scicon.records.base import WordEdit


@dataclass(frozen=True)
class MutationType:
    name: str
    family: str
    cues: frozenset[str] = frozenset()
    phrases: tuple[str, ...] = ()  # multi-word cues, matched on the changed text


def _cues(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Affixes that negate the word they attach to: "effective" -> "ineffective".
_NEGATING_PREFIXES = ("un", "in", "im", "ir", "il", "non", "non-", "dis")

NEGATION_POLARITY = "negation_polarity"  # the type every negation edit gets, whatever else it changes

# Order matters: the first type whose cues match names the mutation.
MUTATION_TYPES: tuple[MutationType, ...] = (
    MutationType(
        NEGATION_POLARITY,
        "logical",
        negation_words("free_standing") | negation_words("lexical"),
    ),
    MutationType(
        "quantifier",
        "logical",
        _cues("all some many few most every each several any both majority minority either half"),
    ),
    MutationType(
        "numerical",
        "logical",
        _cues(
            "one two three four five six seven eight nine ten eleven twelve twenty thirty hundred thousand "
            "million first second third fourth fifth once twice single double triple dozen"
        ),
    ),
    MutationType(
        "modality",
        "logical",
        _cues(
            "may might can could must should will would shall likely unlikely possibly probably possible "
            "certainly definitely perhaps suggest appear seem potentially presumably uncertain certain"
        ),
    ),
    MutationType(
        "existence", "logical", _cues("exist existence present presence absent"), ("there is", "there are")
    ),
    MutationType(
        "conditional", "logical", _cues("if unless provided whether when whenever only"), ("only if",)
    ),
    MutationType(
        "temporal",
        "temporal_spatial",
        _cues(
            "before after earlier later early late past future previously subsequently recently prior "
            "preoperative postoperative short-term long-term acute chronic day week month year hour minute"
        ),
    ),
    MutationType(
        "spatial",
        "temporal_spatial",
        _cues(
            "inside outside above below within proximal distal local systemic left right anterior posterior"
        ),
    ),
    MutationType(
        "causation",
        "event",
        _cues(
            "increase decrease reduce reduction raise elevate improve improvement worsen enhance impair "
            "promote inhibit prevent cause induce suppress attenuate exacerbate alleviate protect trigger "
            "block stimulate accelerate delay mitigate augment diminish boost lowers lowered lowering lead "
            "result contribute "
            "produce abolish restore relieve aggravate counteract enable hinder"
        ),
        ("lead to", "leads to", "result in", "results in"),
    ),
    MutationType(
        "action",
        "event",
        _cues(
            "administer treat receive discontinue continue start stop withdraw add remove use avoid perform "
            "undergo recommend prescribe switch accept reject adopt initiate terminate replace apply"
        ),
    ),
    MutationType(
        "scalar",
        "property",
        _cues(
            "high higher highest low lowest large larger small smaller greater great less least more "
            "long longer short shorter fast faster slow slower strong stronger weak weaker severe mild "
            "major minor maximum minimum rapid gradual substantial slight marked modest"
        ),
    ),
    MutationType(
        "categorical",
        "property",
        _cues("male female men women man woman boys girls adults children adult child infants elderly young"),
    ),
    MutationType(
        "relational",
        "property",
        _cues(
            "associated association correlated correlation linked related independent dependent "
            "positively negatively inversely directly unrelated"
        ),
    ),
    MutationType(
        "state",
        "property",
        _cues(
            "alive dead open closed active inactive stable unstable normal abnormal resistant sensitive "
            "healthy diseased positive negative complete incomplete reversible irreversible"
        ),
    ),
    MutationType(
        "evaluative",
        "property",
        _cues(
            "good bad safe unsafe dangerous harmful beneficial detrimental favorable favourable unfavorable "
            "poor useful useless successful unsuccessful promising superior inferior better worse best worst "
            "effective ineffective efficacious appropriate feasible acceptable optimal suboptimal valuable "
            "reliable accurate important effectively safely well tolerated tolerable adverse"
        ),
    ),
)
OTHER = "other"
TYPE_NAMES: tuple[str, ...] = tuple(t.name for t in MUTATION_TYPES) + (OTHER,)

_NUMBER = re.compile(r"\d")


def _forms(word: str) -> set[str]:
    """A cue word and its regular inflections (good enough for verbs and plurals in claims)."""
    forms = {word, word + "s", word + "es", word + "ed", word + "d", word + "ing"}
    if word.endswith("e"):
        forms.add(word[:-1] + "ing")
    if word.endswith("y") and len(word) > 2:
        forms |= {word[:-1] + "ied", word[:-1] + "ies"}
    return forms


_LOOKUP: list[tuple[MutationType, frozenset[str]]] = [
    (kind, frozenset(form for cue in kind.cues for form in _forms(cue))) for kind in MUTATION_TYPES
]


def _affix_negation(removed: set[str], inserted: set[str]) -> bool:
    """True when one side is the other with a negating prefix ("effective" / "ineffective")."""
    for a, b in ((removed, inserted), (inserted, removed)):
        for word in a:
            if any(word == prefix + other for other in b for prefix in _NEGATING_PREFIXES):
                return True
    return False


def changed_words(edits: Iterable[WordEdit]) -> tuple[set[str], set[str]]:
    """Lower-cased words removed and inserted by ``edits``, less the words one edit keeps.

    A word is cancelled only within the edit that both removes and inserts it ("did not
    reduce" -> "did not lower" changes one word): a "not" deleted in one place and inserted in
    another is two negation flips, not an unchanged sentence."""
    removed: set[str] = set()
    inserted: set[str] = set()
    for edit in edits:
        gone, added = set(edit.original.lower().split()), set(edit.replacement.lower().split())
        removed |= gone - added
        inserted |= added - gone
    return removed, inserted


def mutation_type(edits: Iterable[WordEdit]) -> str:
    """The appendix-D type of a mutation given its word edits; ``other`` when no rule fires."""
    edits = tuple(edits)
    removed, inserted = changed_words(edits)
    changed = removed | inserted
    if not changed:
        return OTHER
    if any(is_negation(word) for word in changed) or _affix_negation(removed, inserted):
        return NEGATION_POLARITY
    texts = [f"{edit.original} {edit.replacement}".lower() for edit in edits]
    for kind, forms in _LOOKUP:
        if kind.name == "numerical" and any(_NUMBER.search(word) for word in changed):
            return kind.name
        if changed & forms or any(phrase in text for phrase in kind.phrases for text in texts):
            return kind.name
    return OTHER
