"""The operators' rules as data: TSV tables under ``scicon/rules/tables/``, each row named.

Every table has a header line, ``#`` comment lines and tab-separated rows
(:mod:`scicon.tsv`); a row with the wrong number of fields, an unknown part of speech
or a repeated name fails with the file and line named. Rows come back as frozen
records in file order, so an operator's output can name the rule that made it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from scicon.errors import InputFormatError
from scicon.tsv import Row, check_value, read_table

__data__ = ("tables",)

TABLES = Path(__file__).parent / "tables"
POS_VALUES = ("VERB", "NOUN", "ADJ", "ADV", "PHRASE")


def _unique_names(path: Path, rows: list[Row]) -> None:
    seen: dict[str, int] = {}
    for row in rows:
        name = row.fields["name"]
        if name in seen:
            raise InputFormatError(
                str(path), f"rule name {name!r} already used on line {seen[name]}", row.line
            )
        seen[name] = row.line


@dataclass(frozen=True)
class LexicalPair:
    """A named word pair: ``word`` becomes ``opposite`` (polarity) or ``synonym`` (controls)."""

    name: str
    pos: str
    word: str
    replacement: str


def _pairs(filename: str, replacement_column: str, symmetric_column: str | None) -> tuple[LexicalPair, ...]:
    path = TABLES / filename
    rows = list(read_table(path))
    _unique_names(path, rows)
    pairs = []
    for row in rows:
        pos = check_value(path, row, "pos", POS_VALUES)
        word, other = row.fields["word"].lower(), row.fields[replacement_column].lower()
        pairs.append(LexicalPair(row.fields["name"], pos, word, other))
        both = (
            True
            if symmetric_column is None
            else check_value(path, row, symmetric_column, ("both", "forward"))
        )
        if both is True or both == "both":
            pairs.append(LexicalPair(row.fields["name"], pos, other, word))
    return tuple(pairs)


@functools.cache
def polarity_pairs() -> tuple[LexicalPair, ...]:
    return _pairs("polarity.tsv", "opposite", "direction")


@functools.cache
def synonym_pairs() -> tuple[LexicalPair, ...]:
    return _pairs("synonyms.tsv", "synonym", None)


@dataclass(frozen=True)
class PhraseFlip:
    """A named phrase replacement that applies in a named context (quantifiers, modality)."""

    name: str
    match: tuple[str, ...]
    replacement: str
    context: str


@functools.cache
def phrase_flips(filename: str, contexts: tuple[str, ...]) -> tuple[PhraseFlip, ...]:
    path = TABLES / filename
    rows = list(read_table(path))
    _unique_names(path, rows)
    return tuple(
        PhraseFlip(
            name=row.fields["name"],
            match=tuple(row.fields["match"].lower().split()),
            replacement=row.fields["replacement"],
            context=check_value(path, row, "context", contexts),
        )
        for row in rows
    )


@dataclass(frozen=True)
class ClosedClassEntry:
    tag: str
    pos: str


@functools.cache
def closed_class() -> dict[str, tuple[ClosedClassEntry, ...]]:
    entries: dict[str, list[ClosedClassEntry]] = {}
    for row in read_table(TABLES / "closed_class.tsv"):
        entries.setdefault(row.fields["word"], []).append(
            ClosedClassEntry(row.fields["tag"], row.fields["pos"])
        )
    return {word: tuple(values) for word, values in entries.items()}


CUE_GROUPS = (
    "reporting_verb",
    "subordinator",
    "sentence_adverb",
    "to_preposition_head",
    "mass_noun",
    "number_context",
    "ranking_cue",
    "symmetric_cue",
    "comparator_term",
)


@functools.cache
def cues() -> dict[str, frozenset[str]]:
    path = TABLES / "cues.tsv"
    groups: dict[str, set[str]] = {group: set() for group in CUE_GROUPS}
    for row in read_table(path):
        groups[check_value(path, row, "group", CUE_GROUPS)].add(row.fields["word"].lower())
    return {group: frozenset(words) for group, words in groups.items()}


@dataclass(frozen=True)
class WordnetOverride:
    word: str
    pos: str
    action: str
    antonym: str
    reason: str


@functools.cache
def wordnet_overrides() -> dict[tuple[str, str], WordnetOverride]:
    path = TABLES / "wordnet_overrides.tsv"
    overrides = {}
    for row in read_table(path):
        key = (row.fields["word"].lower(), check_value(path, row, "pos", POS_VALUES))
        if key in overrides:
            raise InputFormatError(str(path), f"{key[0]} {key[1]} is listed twice", row.line)
        overrides[key] = WordnetOverride(
            key[0],
            key[1],
            check_value(path, row, "action", ("block", "prefer")),
            row.fields["antonym"],
            row.fields["reason"],
        )
    return overrides
