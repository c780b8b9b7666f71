"""What the operators may borrow from the sentence's abstract: its numbers, and the
names of the compared arms and other entities.

Entity mentions come from three sources, best first:

1. an installed scispaCy NER model (``en_ner_bc5cdr_md`` chemicals and diseases, or
   ``en_core_sci_sm`` entities) — see :mod:`scicon.rules.resources`;
2. scispaCy's abbreviation detector (Schwartz & Hearst), which works on the blank
   pipeline: "cognitive behavioural therapy (CBT)" gives both forms of one entity;
3. named pattern rules for how trial abstracts name their arms ("randomised to A or
   B", "A versus B", "A compared with B") and the usual comparators (placebo, usual
   care, ...; ``tables/cues.tsv``).

Arms found by the rules are paired (intervention, comparator), which is what the
role and entity swaps exchange.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from scicon.records.corpus import Abstract, Role
from scicon.rules import resources
from scicon.rules.tables import closed_class, cues
from scicon.rules.tagging import readings

# How trial abstracts name the compared arms; each rule named, arms in groups a and b.
_ARM = r"(?P<{name}>[A-Za-z][\w\-+/]*(?:\s+[\w\-+/]+){{0,4}}?)"
# "cognitive behavioural therapy (CBT) or usual care": the abbreviation is not part of the name
_ABBREVIATION = r"(?:\s+\([^()]{1,15}\))?"
ARM_PATTERNS: dict[str, re.Pattern[str]] = {
    "randomised_to_a_or_b": re.compile(
        r"(?:randomi[sz]ed|randomly\s+(?:assigned|allocated)|assigned|allocated)\s+(?:\w+\s+){0,3}?to\s+"
        r"(?:receive\s+)?(?:either\s+)?"
        + _ARM.format(name="a")
        + _ABBREVIATION
        + r"\s+(?:or|versus|vs\.?)\s+"
        + _ARM.format(name="b")
        + r"(?=\s*(?:[,;.()]|$|\s(?:for|in|at|during|with|groups?|arms?|daily|twice|once)\b))",
        re.IGNORECASE,
    ),
    "a_versus_b": re.compile(
        _ARM.format(name="a")
        + _ABBREVIATION
        + r"\s+(?:versus|vs\.?|compared\s+with|compared\s+to)\s+"
        + _ARM.format(name="b")
        + r"(?=\s*(?:[,;.()]|$|\s(?:in|for|on|among|groups?|arms?)\b))",
        re.IGNORECASE,
    ),
}
# Words that cannot start or end an arm name (trimmed from pattern matches).
_EDGE_WORDS = frozenset(
    "a an the of with to in on for and or either both receive received patients participants group groups "
    "arm arms treatment effect effects efficacy safety compare compared comparing versus vs".split()
)
_DOSE = re.compile(r"\s+\d.*$")
_NUMBER = re.compile(r"(?<![\w.\-/])(\d+(?:,\d{3})*(?:\.\d+)?)(\s?%)?(?![\w\-/]|\.\d)")


@dataclass(frozen=True)
class NumberMention:
    value: str  # as written, e.g. "12.5"
    percent: bool

    @property
    def is_integer(self) -> bool:
        return "." not in self.value

    @property
    def is_year(self) -> bool:
        return self.is_integer and not self.percent and 1900 <= float(self.value.replace(",", "")) <= 2100

    @property
    def magnitude(self) -> float:
        return float(self.value.replace(",", ""))


@dataclass(frozen=True)
class AbstractContext:
    pmid: str
    numbers: tuple[NumberMention, ...]
    arms: tuple[tuple[str, str], ...]  # (intervention, comparator) name pairs as written
    synonyms: tuple[tuple[str, str], ...]  # (short form, long form) of one entity
    entities: tuple[str, ...]  # every entity name known, longest first

    def arm_names(self) -> frozenset[str]:
        """Names of compared arms, with their abbreviations, and the usual comparators, lower-cased."""
        names = {name.lower() for pair in self.arms for name in pair} | set(cues()["comparator_term"])
        for short, long in self.synonyms:
            if short.lower() in names or long.lower() in names:
                names.update((short.lower(), long.lower()))
        return frozenset(names)


def numbers_in(text: str) -> list[tuple[int, int, NumberMention]]:
    return [(m.start(), m.end(), NumberMention(m.group(1), bool(m.group(2)))) for m in _NUMBER.finditer(text)]


def _nominal(word: str) -> bool:
    """Could be part of a treatment's name: a noun, adjective or unknown word, not a function word."""
    if word.lower() in _EDGE_WORDS or word.lower() in closed_class():
        return False
    found = readings(word)
    return any(r.pos in ("NOUN", "PROPN", "ADJ") for r in found) and not any(r.pos == "AUX" for r in found)


def _trim(name: str, keep: str) -> str | None:
    """The arm name inside a pattern match: doses dropped, and only the nominal words next to
    the connective kept ("the efficacy of velanoxet" -> "velanoxet")."""
    words = _DOSE.sub("", name).split()
    kept: list[str] = []
    for word in reversed(words) if keep == "right" else words:
        if not _nominal(word):
            break
        kept.append(word)
    if keep == "right":
        kept.reverse()
    if not kept or len(kept) > 4 or not any(len(w) > 2 for w in kept):
        return None
    return " ".join(kept)


@functools.lru_cache(maxsize=4096)
def abstract_context(abstract: Abstract) -> AbstractContext:
    text = " ".join(sentence.text for sentence in abstract.sentences)
    doc = resources.abstract_pipeline()(text)
    synonyms = {
        (abbr.text, abbr._.long_form.text) for abbr in doc._.abbreviations if abbr._.long_form is not None
    }
    entities = {name for pair in synonyms for name in pair}
    entities.update(ent.text for ent in doc.ents if len(ent.text) > 2)
    arms: set[tuple[str, str]] = set()
    # Objectives and methods name the arms; elsewhere "A versus B" is usually an
    # outcome or subgroup comparison ("12% versus 18%", "men versus women").
    for sentence in abstract.sentences:
        if sentence.role not in (Role.OBJECTIVE, Role.METHODS):
            continue
        for pattern in ARM_PATTERNS.values():
            for match in pattern.finditer(sentence.text):
                a, b = _trim(match.group("a"), keep="right"), _trim(match.group("b"), keep="left")
                if a and b and a.lower() != b.lower():
                    arms.add((a, b))
    comparators = cues()["comparator_term"]
    for a, b in list(arms):
        entities.update((a, b))
    for term in comparators:
        if re.search(rf"\b{re.escape(term)}\b", text, re.IGNORECASE):
            entities.add(term)
    numbers = tuple(mention for _, _, mention in numbers_in(text) if not mention.is_year)
    return AbstractContext(
        pmid=abstract.pmid,
        numbers=numbers,
        arms=tuple(sorted(arms)),
        synonyms=tuple(sorted(synonyms)),
        entities=tuple(sorted(entities, key=lambda e: (-len(e), e))),
    )
