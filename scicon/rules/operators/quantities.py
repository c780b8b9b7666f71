"""Numeric mismatch, quantifier flips and modality flips.

Numeric mismatch follows BioNLI's Swap Numbers (a number of the sentence replaced by
a different one from the same abstract) and the numerical-mismatch rule of
"Generating Prototypes for Contradiction Detection Using Large Language Models and
Linguistic Rules" (a bigger or smaller number); p-value directions are flipped too.
Quantifier and modality flips are table rows (``tables/quantifiers.tsv``,
``tables/modality.tsv``), each named, each with a named context.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from scicon.records.base import TargetLabel
from scicon.rules.context import AbstractContext, NumberMention, numbers_in
from scicon.rules.edits import Edit, apply_edits
from scicon.rules.inflection import match_case
from scicon.rules.negation_scope import negated_clause
from scicon.rules.operators import OPERATORS
from scicon.rules.tables import PhraseFlip, cues, phrase_flips
from scicon.rules.tagging import Analysis, Token

_P_VALUE = re.compile(r"\b[pP]\s*(?P<op><=|>=|[<>≤≥])\s*0?[.,·]\d+")
# A number right after these is a threshold or an interval bound, not a finding.
_THRESHOLD_BEFORE = re.compile(
    r"(?:[<>≤≥=±]|\+/-|\bor\s*=|\bCIs?\b[^;)]{0,12}|\b(?:SD|SE|SEM|st\.\s?dev\.|deviation)\s*[:=,]?"
    r"|(?:\d|\b(?:two|three|four|five|six|seven|eight|nine|ten))"
    r"\s*(?:to|-|–)\s*)\s*$",
    re.IGNORECASE,
)
_LISTED_AFTER = re.compile(r"\b([A-Za-z]+)\s+\d+\s*(?:and|or|,|/|to)\s*$")
_RANGE_START = re.compile(r"\s?%?\s*(?:to|-|–)\s*\d")
# Swapped-in numbers stay within this factor of the original, so "4 patients" does not become "789".
SWAP_MAX_FACTOR = 10.0
_FLIP = {"<": ">", ">": "<", "≤": "≥", "≥": "≤", "<=": ">=", ">=": "<="}
_NUMBER_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"]
_CI_AFTER = re.compile(r"\s*(?:CI|confidence|credible|percentile)", re.IGNORECASE)
_WORD_BEFORE = re.compile(r"([\w\-]+)\W*$")
SWAPS_PER_NUMBER = 2


def _skippable(text: str, start: int, end: int, mention: NumberMention, protected: list[range]) -> bool:
    if any(start in span for span in protected):
        return True
    if _CI_AFTER.match(text, end):
        return True  # "95% CI" names the interval, it is not a finding
    if _RANGE_START.match(text, end) or (start > 1 and text[start - 1] == "(" and text[start - 2].isalnum()):
        return True  # the start of "12 to 14 days"; exponents and indices as in "10(5)" or "Vo(2)"
    if _THRESHOLD_BEFORE.search(text[max(0, start - 20) : start]):
        return True  # "p = 0.03", ">50%", "95% CI 1.1 to 2.3", "± 5.2", the end of "seven to 10"
    before = _WORD_BEFORE.search(text[:start])
    if before and before.group(1).lower() in cues()["number_context"]:
        return True  # "type 2", "phase 3"
    listed = _LISTED_AFTER.search(text[max(0, start - 30) : start])
    if listed and listed.group(1).lower() in cues()["number_context"]:
        return True  # the "2" of "types 1 and 2"
    # "1 year" would need its noun re-inflected; 0 has no scaled value
    return mention.is_year or mention.magnitude == 0 or (mention.magnitude == 1 and not mention.percent)


def _format_like(value: float, template: str) -> str:
    decimals = len(template.split(".")[1]) if "." in template else 0
    return f"{value:.{decimals}f}"


def _scaled(mention: NumberMention) -> str:
    """Double small values and halve large ones, keeping the written precision."""
    value = float(mention.value.replace(",", ""))
    if mention.percent:
        new = value * 2 if value <= 50 else value / 2
    elif value < 1:  # proportions and coefficients stay below 1
        new = value * 2 if value <= 0.5 else value / 2
    else:
        new = value * 2
    written = _format_like(new, mention.value)
    if written == mention.value.replace(",", ""):
        written = _format_like(value + 1, mention.value)
    return written


@OPERATORS.register(
    "numeric_mismatch", label=TargetLabel.CONTRADICTION, description="change, swap or flip a number"
)
def numeric_mismatch(analysis: Analysis, context: AbstractContext | None) -> list[tuple[str, str]]:
    text = analysis.text
    out = []
    protected = []
    for match in _P_VALUE.finditer(text):
        protected.append(range(match.start(), match.end()))
        op_start, op_end = match.span("op")
        out.append(("p_value_direction", text[:op_start] + _FLIP[match.group("op")] + text[op_end:]))
    mentions = numbers_in(text)
    in_sentence = {m.value for _, _, m in mentions}
    for start, end, mention in mentions:
        if _skippable(text, start, end, mention, protected):
            continue
        value_end = start + len(mention.value)
        if context is not None:
            swaps = [
                other.value
                for other in dict.fromkeys(context.numbers)
                if other.percent == mention.percent
                and other.is_integer == mention.is_integer
                and other.value not in in_sentence
                and other.magnitude > 0
                and 1 / SWAP_MAX_FACTOR <= other.magnitude / mention.magnitude <= SWAP_MAX_FACTOR
            ]
            for value in swaps[:SWAPS_PER_NUMBER]:
                out.append(("swap_within_abstract", text[:start] + value + text[value_end:]))
        out.append(("scale_number", text[:start] + _scaled(mention) + text[value_end:]))
    for t in analysis.tokens:
        if t.lower in _NUMBER_WORDS[:-1]:
            following = analysis.neighbour(t.i, 1)
            if following is not None and following.pos in ("NOUN", "ADJ"):
                new = _NUMBER_WORDS[_NUMBER_WORDS.index(t.lower) + 1]
                out.append(
                    ("number_word_shift", apply_edits(analysis, [Edit(t.i, t.i, match_case(t.text, new))]))
                )
    return out


# ------------------------------------------------------------------- quantifier and modality


def _head_after(analysis: Analysis, last: int) -> Token | None:
    for t in analysis.tokens[last + 1 :]:
        if t.pos in ("NOUN", "PROPN"):
            nxt = analysis.neighbour(t.i, 1)
            if nxt is None or nxt.pos not in ("NOUN", "PROPN"):
                return t
        elif t.pos not in ("ADJ", "ADV", "NUM") and t.tag not in ("VBN", "VBG"):
            return None
    return None


CONTEXTS: dict[str, Callable[[Analysis, int, int], bool]] = {
    "any": lambda a, first, last: True,
    # "all remaining 17 practices", "some 0.33 gases": a number follows, not a plain noun phrase
    # "26% of all families" -> "26% of no families", "not all children" -> "not no children"
    "before_noun": lambda a, first, last: (
        _head_after(a, last) is not None
        and not (first > 0 and a.tokens[first - 1].lower in ("a", "of", "not"))
        and not any(t.pos == "NUM" for t in a.tokens[last + 1 : last + 3])
    ),
    "before_plural_noun": lambda a, first, last: (h := _head_after(a, last)) is not None and h.tag == "NNS",
    "not_before_plural_noun": lambda a, first, last: (
        not ((h := _head_after(a, last)) is not None and h.tag == "NNS")
    ),
    "before_adjective": lambda a, first, last: (
        last + 1 < len(a.tokens) and a.tokens[last + 1].pos in ("ADJ", "ADV")
    ),
    "before_noun_not_after_the": lambda a, first, last: (
        _head_after(a, last) is not None and not (first > 0 and a.tokens[first - 1].lower in ("a", "the"))
    ),
    # "only a minority", "the great majority" read badly flipped
    "not_after_only": lambda a, first, last: (
        not (
            {"only", "great", "vast", "overwhelming"} & {t.lower for t in a.tokens[max(0, first - 2) : first]}
        )
    ),
    "directly_before_plural_noun": lambda a, first, last: (
        last + 1 < len(a.tokens) and a.tokens[last + 1].tag == "NNS"
    ),
    "not_directly_before_plural_noun": lambda a, first, last: (
        not (last + 1 < len(a.tokens) and a.tokens[last + 1].tag == "NNS")
    ),
    # "less likely" -> "less unlikely" says little; the degree word carries the claim
    "not_after_degree": lambda a, first, last: (
        not (first > 0 and a.tokens[first - 1].lower in ("less", "more", "most", "very", "highly", "least"))
    ),
    "before_verb": lambda a, first, last: (
        (n := a.neighbour(last, 1, skip_adverbs=True)) is not None and (n.tag == "VB" or n.lower == "be")
    ),
}


def _flips(analysis: Analysis, flips: tuple[PhraseFlip, ...]) -> list[tuple[str, str]]:
    out = []
    words = [t.lower for t in analysis.tokens]
    for flip in flips:
        size = len(flip.match)
        for first in range(len(words) - size + 1):
            if tuple(words[first : first + size]) != flip.match:
                continue
            last = first + size - 1
            if negated_clause(analysis, first):
                continue  # "not ... all" -> "not ... no", "no increase in less" -> "more": no contradiction
            if CONTEXTS[flip.context](analysis, first, last):
                edit = Edit(first, last, match_case(analysis.tokens[first].text, flip.replacement))
                out.append((flip.name, apply_edits(analysis, [edit])))
    return out


@OPERATORS.register(
    "quantifier_flip", label=TargetLabel.CONTRADICTION, description="all/some/none, more/fewer"
)
def flip_quantifier(analysis: Analysis, context: AbstractContext | None) -> list[tuple[str, str]]:
    return _flips(analysis, phrase_flips("quantifiers.tsv", tuple(CONTEXTS)))


@OPERATORS.register(
    "modality_flip", label=TargetLabel.CONTRADICTION, description="may/cannot, likely/unlikely"
)
def flip_modality(analysis: Analysis, context: AbstractContext | None) -> list[tuple[str, str]]:
    return _flips(analysis, phrase_flips("modality.tsv", tuple(CONTEXTS)))
