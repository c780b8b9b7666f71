"""Entity and role swaps inside one abstract.

BioNLI ("BioNLI: Generating a Biomedical NLI Dataset Using Lexico-semantic
Constraints for Adversarial Examples", section 3.3.1) swaps the names of the two
interacting entities (SEN) and swaps an entity for another of the same abstract
(SRE). In trial conclusions the two entities are the compared arms, so:

- ``role_swap`` exchanges two different entities of one sentence when the sentence
  ranks them ("A reduced pain more than B" -> "B reduced pain more than A"), and
  never across a symmetric relation ("A and B", "similar to"), where the swap would
  keep the meaning;
- ``entity_swap`` replaces the one arm a ranking sentence names by the other arm of
  the same trial ("A was superior to placebo" -> "B was superior to placebo").

Entities come from :mod:`scicon.rules.context` (NER model if installed, scispaCy
abbreviations, arm patterns, comparator terms).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scicon.records.base import TargetLabel
from scicon.rules import resources
from scicon.rules.context import AbstractContext
from scicon.rules.operators import OPERATORS
from scicon.rules.tables import closed_class, cues
from scicon.rules.tagging import Analysis, readings


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    entity: str  # canonical name (long form of an abbreviation, lower-cased)


def _canonical(context: AbstractContext) -> dict[str, str]:
    canon = {name.lower(): name.lower() for name in context.entities}
    for short, long in context.synonyms:
        canon[short.lower()] = long.lower()
    return canon


def mentions(text: str, context: AbstractContext, whole_phrases: bool = True) -> list[Mention]:
    """Non-overlapping entity mentions in ``text``, longest names first, in text order."""
    canon = _canonical(context)
    taken: list[Mention] = []
    for name in context.entities:
        entity = canon.get(name.lower(), name.lower())
        for match in re.finditer(
            rf"(?<![\w-]){re.escape(name)}(?![\w-])(\s*\((?P<short>[^()]+)\))?", text, re.I
        ):
            end = match.end()
            # "cognitive behavioural therapy (CBT)" is one mention; other brackets are not part of it
            if match.group("short") is not None and canon.get(match.group("short").lower()) != entity:
                end = match.start(1)
            if whole_phrases and not _whole_phrase(text, match.start(), end):
                continue
            if all(end <= m.start or match.start() >= m.end for m in taken):
                taken.append(Mention(match.start(), end, entity))
    return sorted(taken, key=lambda m: m.start)


_WORD_BEFORE = re.compile(r"([A-Za-z][\w-]*)\s*$")
_WORD_AFTER = re.compile(r"^\s*([A-Za-z][\w-]*)")


def _modifier_or_noun(word: str) -> bool:
    found = readings(word)
    return all(r.pos in ("NOUN", "PROPN", "ADJ") for r in found) and word.lower() not in closed_class()


def _whole_phrase(text: str, start: int, end: int) -> bool:
    """A name inside a longer noun phrase is another thing: "squamous cell" in "squamous
    cell carcinoma", "cesarean" in "cesarean delivery", "jugular vein" in "right jugular vein"."""
    before = _WORD_BEFORE.search(text[:start])
    after = _WORD_AFTER.search(text[end:])
    # a capitalised word before is a title ("Demonstration PSNs"), not a modifier
    if before and before.group(1)[:1].islower() and _modifier_or_noun(before.group(1)):
        return False
    return not (after and _modifier_or_noun(after.group(1)))


def _words(text: str) -> set[str]:
    return set(re.findall(r"[\w.\-]+", text.lower()))


def _ranks(text: str) -> bool:
    return bool(_words(text) & cues()["ranking_cue"])


# Connectives that put two named arms on opposite sides of a ranking; bare "more" or
# "higher" anywhere in the sentence is not enough (it usually ranks outcomes or groups).
_STRONG_CUES = frozenset(
    {"than", "superior", "inferior", "compared", "versus", "vs", "vs.", "over", "relative"}
)


def _as_inner(name: str, context: AbstractContext) -> str:
    """A sentence-initial name loses its capital when it moves inside, if it is a common word
    ("Placebo" -> "placebo") or written in lower case elsewhere in the abstract ("velanoxet")."""
    first = name.split()[0]
    if not (first[:1].isupper() and first[1:].islower()):
        return name
    lowered = name[:1].lower() + name[1:]
    if lowered in context.entities or resources.lemminflect().getAllLemmas(first.lower()):
        return lowered
    return name


def _splice(text: str, replacements: list[tuple[int, int, str]], context: AbstractContext) -> str:
    out, cursor = [], 0
    for start, end, new in sorted(replacements):
        if start == 0:
            new = new[:1].upper() + new[1:]
        else:
            new = _as_inner(new, context)
        out += [text[cursor:start], new]
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


@OPERATORS.register("role_swap", label=TargetLabel.CONTRADICTION, description="swap the ranked entities")
def role_swap(analysis: Analysis, context: AbstractContext | None) -> list[tuple[str, str]]:
    if context is None or not _ranks(analysis.text):
        return []
    text = analysis.text
    arms = context.arm_names()
    found = [m for m in mentions(text, context) if m.entity in arms or text[m.start : m.end].lower() in arms]
    out = []
    for k, first in enumerate(found):
        second = next((m for m in found[k + 1 :] if m.entity != first.entity), None)
        if second is None:
            continue
        between = _words(text[first.end : second.start])
        if between & cues()["symmetric_cue"] or not between & _STRONG_CUES:
            continue
        a, b = text[first.start : first.end], text[second.start : second.end]
        out.append(
            (
                "swap_ranked_entities",
                _splice(text, [(first.start, first.end, b), (second.start, second.end, a)], context),
            )
        )
        break  # the first ranked pair is the claim; later pairs repeat it
    return out


@OPERATORS.register(
    "entity_swap", label=TargetLabel.CONTRADICTION, description="replace an arm by the other arm"
)
def entity_swap(analysis: Analysis, context: AbstractContext | None) -> list[tuple[str, str]]:
    if context is None or not context.arms or not _words(analysis.text) & _STRONG_CUES:
        return []
    text = analysis.text
    canon = _canonical(context)
    found = mentions(text, context)
    # arms named anywhere count, even inside a longer phrase, so that the swap never
    # brings in an arm the sentence already names
    named = {m.entity for m in mentions(text, context, whole_phrases=False)}
    out = []
    for a, b in context.arms:
        ca, cb = canon.get(a.lower(), a.lower()), canon.get(b.lower(), b.lower())
        for present, other, other_name in ((ca, cb, b), (cb, ca, a)):
            if present in named and other not in named:
                spans = [(m.start, m.end, other_name) for m in found if m.entity == present]
                out.append(("swap_arm", _splice(text, spans, context)))
    return out
