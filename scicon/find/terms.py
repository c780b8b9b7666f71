"""What a claim's text says that the comparability checks read, and what two claims share.

Shared terms are the content words, abbreviations and quantities both sentences use, less
function words and the words every trial report uses ("patients", "significantly",
"reduced"). The populations (``populations.tsv``), doses and follow-up durations a text
names are what the checks of :mod:`scicon.find.checks` compare. A claim is compared with
each of its neighbours in turn, so what its text says is read once (cached per text).
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


@functools.lru_cache(maxsize=8192)
def populations(text: str) -> frozenset[str]:
    table = _populations()
    return frozenset(table.named[match] for match in table.pattern.findall(text.lower()))


def broader_populations(population: str) -> set[str]:
    """The population and every broader one it belongs to (older adults: adults too)."""
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


@functools.lru_cache(maxsize=8192)
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


@functools.lru_cache(maxsize=8192)
def doses(text: str) -> frozenset[tuple[float, str]]:
    return frozenset((float(value), unit.lower().replace("μ", "µ")) for value, unit in DOSE.findall(text))


@functools.lru_cache(maxsize=8192)
def durations(text: str) -> frozenset[float]:
    return frozenset(float(value) * DAYS[unit.lower().rstrip("s")] for value, unit in DURATION.findall(text))


def describe(values: Iterable) -> str:
    return ", ".join(sorted(str(value) for value in values))


def shared_terms(first: str, second: str) -> tuple[str, ...]:
    """The content terms both texts use, and the doses both name ("10 mg"), sorted."""
    same_doses = {f"{value:g} {unit}" for value, unit in doses(first) & doses(second)}
    return tuple(sorted(set(content_terms(first) & content_terms(second)) | same_doses))
