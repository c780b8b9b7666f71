"""What two claims share, and where their text shows they are not about the same question.

Shared terms are the content words, abbreviations and quantities both sentences use, less
function words and the words every trial report uses ("patients", "significantly",
"reduced"). A pair is *not comparable* when its text shows it is about different studies'
questions: a different population (``populations.tsv``), a different dose of the same unit,
a different follow-up, or no content term in common beyond those. Each reason names what
differs, so a reader can check it against the two sentences.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from scicon.tsv import read_table

__data__ = ("populations.tsv",)

POPULATIONS = Path(__file__).parent / "populations.tsv"

# Words of any trial report: sharing them says nothing about sharing a question, and the
# direction words among them are what a contradiction may turn around.
REPORTING_WORDS = frozenset(
    """
    patient patients participant participants subject subjects study studies trial trials group groups
    significantly significant compared comparison treatment treatments treated therapy effect effects
    effective efficacy result results associated association showed show shown shows demonstrated may
    might also however among use used using data difference differences outcome outcomes improved
    improve improves improvement reduced reduce reduces reduction increased increase increases
    decreased decrease decreases lower higher better worse risk rate rates level levels clinical
    evidence findings suggest suggests suggested conclusion conclusions randomized randomised
    controlled placebo versus vs well respectively after before during overall present current
    safe safety tolerated dose doses registration registered number identifier did does needed
    required larger longer future research confirm warranted different low high strong value
    indicate indicates indicated case cases limited impact information factor factors role important
    good poor new whether likely possible potential performed observed found
    """.split()
)
WORD = re.compile(r"[A-Za-z][A-Za-z0-9'\-]*")
DOSE = re.compile(r"(\d+(?:\.\d+)?)\s*(mg/kg|mg/m2|mg|mcg|µg|μg|g|iu|ml|mmol)(?![a-z])", re.IGNORECASE)
DURATION = re.compile(r"(\d+(?:\.\d+)?)[\s-]*(days?|weeks?|months?|years?)\b", re.IGNORECASE)
DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}


@dataclass(frozen=True)
class Comparison:
    shared_terms: tuple[str, ...]
    not_comparable: tuple[str, ...]  # reasons; empty when nothing shows a mismatch

    @property
    def comparable(self) -> bool:
        return not self.not_comparable


@dataclass(frozen=True)
class _Populations:
    pattern: re.Pattern  # every phrase, longest first
    named: dict[str, str]  # phrase -> population
    within: dict[str, str]  # population -> the broader one it belongs to
    words: frozenset[str]  # the words of every phrase: not content terms


@functools.cache
def _populations() -> _Populations:
    named, within = {}, {}
    for row in read_table(POPULATIONS):
        named[row.fields["phrase"]] = row.fields["population"]
        if row.fields["within"] != "-":
            within[row.fields["population"]] = row.fields["within"]
    phrases = sorted(named, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(re.escape(phrase) for phrase in phrases) + r")\b")
    words = frozenset(word for phrase in named for word in phrase.split())
    return _Populations(pattern, named, within, words)


def populations(text: str) -> frozenset[str]:
    table = _populations()
    return frozenset(table.named[match] for match in table.pattern.findall(text.lower()))


def _broader(population: str) -> set[str]:
    within = _populations().within
    chain = {population}
    while population in within:
        population = within[population]
        chain.add(population)
    return chain


def _normalised(word: str) -> str:
    from lemminflect import getLemma

    if len(word) > 1 and sum(ch.isupper() for ch in word) >= 2:
        return word.rstrip("s").upper()  # an abbreviation (HFrEF, HCCs) keeps its identity
    return getLemma(word.lower(), upos="NOUN")[0]


def content_terms(text: str) -> frozenset[str]:
    population_words = _populations().words
    terms = set()
    for word in WORD.findall(text):
        lower = word.lower()
        if (
            len(lower) < 3
            or lower in ENGLISH_STOP_WORDS
            or lower in REPORTING_WORDS
            or lower in population_words
        ):
            continue
        terms.add(_normalised(word))
    return frozenset(terms)


def doses(text: str) -> frozenset[tuple[float, str]]:
    return frozenset((float(value), unit.lower().replace("μ", "µ")) for value, unit in DOSE.findall(text))


def durations(text: str) -> frozenset[float]:
    return frozenset(float(value) * DAYS[unit.lower().rstrip("s")] for value, unit in DURATION.findall(text))


@dataclass(frozen=True)
class _Facts:
    terms: frozenset[str]
    doses: frozenset[tuple[float, str]]
    durations: frozenset[float]
    populations: frozenset[str]


# A claim is compared with each of its neighbours in turn: what its text says is read once.
@functools.lru_cache(maxsize=8192)
def _facts(text: str) -> _Facts:
    return _Facts(content_terms(text), doses(text), durations(text), populations(text))


def _conflicting_populations(first: frozenset[str], second: frozenset[str]) -> bool:
    if not first or not second:
        return False
    return not any(a in _broader(b) or b in _broader(a) for a in first for b in second)


def _close(first_days: float, second_days: float) -> bool:
    """12 weeks and 3 months are one follow-up: within 15 % of each other."""
    return abs(first_days - second_days) <= 0.15 * max(first_days, second_days)


def _describe(values: Iterable) -> str:
    return ", ".join(sorted(str(value) for value in values))


def compare(first: str, second: str, min_shared_terms: int) -> Comparison:
    """What ``first`` and ``second`` share and why (if at all) their text says they are not comparable."""
    one, other = _facts(first), _facts(second)
    first_doses, second_doses = one.doses, other.doses
    shared = set(one.terms & other.terms) | {
        f"{value:g} {unit}" for value, unit in first_doses & second_doses
    }
    reasons = []
    first_people, second_people = one.populations, other.populations
    if _conflicting_populations(first_people, second_people):
        reasons.append(f"population: {_describe(first_people)} vs {_describe(second_people)}")
    for unit in sorted({unit for _, unit in first_doses} & {unit for _, unit in second_doses}):
        a = {value for value, u in first_doses if u == unit}
        b = {value for value, u in second_doses if u == unit}
        if not a & b:
            reasons.append(
                f"dose: {_describe(f'{v:g} {unit}' for v in a)} vs {_describe(f'{v:g} {unit}' for v in b)}"
            )
    first_days, second_days = one.durations, other.durations
    if first_days and second_days and not any(_close(a, b) for a in first_days for b in second_days):
        first_text = _describe(f"{d:g} days" for d in first_days)
        reasons.append(f"follow-up: {first_text} vs {_describe(f'{d:g} days' for d in second_days)}")
    if len(shared) < min_shared_terms:
        reasons.append(
            f"shared terms: {len(shared)} (fewer than {min_shared_terms}): no common intervention or outcome"
        )
    return Comparison(tuple(sorted(shared)), tuple(reasons))
