"""Evidence Inference abstracts (``PMC<id>.abst``) read as structured abstracts.

The Evidence Inference corpus ("Inferring Which Medical Treatments Work from Reports of Clinical
Trials"; "Evidence Inference 2.0"; MIT licence) gives each randomized controlled trial of PubMed
Central as one text file: a ``TITLE`` line and the title, then the abstract as ``ABSTRACT.<SECTION>:``
headings each followed by its text, then the full text's ``BODY.<SECTION>`` parts. Headings are
as each journal names them ("PATIENTS AND METHODS", "FINDINGS", "INTERPRETATION", "TRIAL
REGISTRATION", nested "ABSTRACT.SUMMARY.FINDINGS."), so a heading is normalised
(:func:`heading_name`) and looked up in a table, ``headings/evidence_inference.tsv``, which maps
every name met in the corpus to one of the five roles, to ``-`` (not the abstract's argument:
registration, funding, box summaries) or to ``unstructured`` (an undivided ``ABSTRACT.`` block).

An abstract is skipped, counted and named by file and line when it is unstructured (nothing but
an undivided block), when it has no text at all, when a heading is not in the table, or when a
section of one of the five roles has no text. The
``BODY.`` parts are not the abstract and are never read. An article's id is its PMCID
(``PMC101395``), from the file name. A file without a ``TITLE`` line, or with bytes that are not
UTF-8, is not this format: the reader stops naming the file (and line).
"""

from __future__ import annotations

import functools
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from scicon.corpus.model import RawAbstract
from scicon.corpus.pubmed_xml import split_sentences
from scicon.errors import InputFormatError
from scicon.records.base import Skip
from scicon.records.corpus import Role, Sentence
from scicon.tsv import check_value, read_table

__data__ = ("headings",)

HEADINGS_TABLE = Path(__file__).parent / "headings" / "evidence_inference.tsv"
SUFFIX = ".abst"
# a heading's role in the table that is not one of the five
LEFT_OUT = "-"
UNSTRUCTURED = "unstructured"
_ROLE_VALUES = (*(role.value for role in Role), LEFT_OUT, UNSTRUCTURED)
# Wrappers some journals nest a structured abstract in ("ABSTRACT.SUMMARY.FINDINGS.")
_NESTED = re.compile(r"^(?:ABSTRACT|SUMMARY|EXPANDED ABSTRACT|SYNOPSIS)\.(.+)$")
_SPACES = re.compile(r"\s+")
_STRIP = " .:[]\u2002\u2014"
_PMCID = re.compile(r"^PMC\d+$")

SKIP_REASONS = (
    "unstructured_abstract",
    "no_abstract",
    "unknown_heading",
    "empty_section",
    "excluded_article",
)


def heading_name(line: str) -> str:
    """The table's name for an ``ABSTRACT.`` heading line: upper case, one space between words,
    without the ``ABSTRACT.`` prefix, nested wrappers or trailing punctuation; an undivided
    ``ABSTRACT.`` block is named ``ABSTRACT``."""
    name = line.strip()[len("ABSTRACT") :].strip(_STRIP)
    while match := _NESTED.match(name):
        name = match.group(1).strip(_STRIP)
    name = _SPACES.sub(" ", name.strip(_STRIP)).upper()
    return name or "ABSTRACT"


@functools.cache
def heading_roles(path: Path = HEADINGS_TABLE) -> dict[str, str]:
    """Normalised heading -> role value, ``-`` or ``unstructured``; a repeated heading or an unknown
    role stops with the table's file and line."""
    roles: dict[str, str] = {}
    for row in read_table(path, required=("heading", "role")):
        heading = row.fields["heading"]
        if heading in roles:
            raise InputFormatError(str(path), f"heading {heading!r} is listed twice", row.line)
        roles[heading] = check_value(path, row, "role", _ROLE_VALUES)
    return roles


@dataclass
class _Section:
    heading: str
    line: int
    text: list[str]


def parse_abstract_file(lines: Iterable[str], origin: str, pmcid: str) -> RawAbstract | Skip:
    """One article's abstract from its lines (a ``TITLE`` line first, ``BODY.`` parts ignored)."""
    sections: list[_Section] = []
    titled = False
    in_abstract = False
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not titled:
            if not line:
                continue
            if not line.upper().startswith("TITLE"):
                raise InputFormatError(
                    origin, "expected a TITLE line first (an Evidence Inference .abst file)", number
                )
            titled = True
            continue
        if line.startswith("ABSTRACT"):
            in_abstract = True
            sections.append(_Section(heading_name(line), number, []))
        elif line.startswith("BODY."):
            in_abstract = False
        elif in_abstract and line and sections:
            sections[-1].text.append(line)
    if not titled:
        raise InputFormatError(
            origin, "no TITLE line (an empty file, or not an Evidence Inference .abst file)"
        )
    return _structured(sections, origin, pmcid)


def _structured(sections: list[_Section], origin: str, pmcid: str) -> RawAbstract | Skip:
    roles = heading_roles()
    for section in sections:
        if section.heading not in roles:
            return Skip(
                reason="unknown_heading",
                where=f"{origin}:{section.line}",
                detail=f"{pmcid}: heading {section.heading!r} is not in {HEADINGS_TABLE.name}",
            )
    if not any(section.text for section in sections):
        line = sections[0].line if sections else 1
        return Skip(
            reason="no_abstract", where=f"{origin}:{line}", detail=f"{pmcid}: the abstract has no text"
        )
    # A section left out, or a wrapper with no text of its own ("ABSTRACT.SUMMARY" before
    # "ABSTRACT.SUMMARY.FINDINGS."), may be empty; a section of one of the five roles may not.
    for section in sections:
        if not section.text and roles[section.heading] not in (LEFT_OUT, UNSTRUCTURED):
            return Skip(
                reason="empty_section",
                where=f"{origin}:{section.line}",
                detail=f"{pmcid}: section {section.heading!r} has no text",
            )
    kept = [s for s in sections if roles[s.heading] not in (LEFT_OUT, UNSTRUCTURED)]
    if not kept:
        return Skip(
            reason="unstructured_abstract",
            where=f"{origin}:{sections[0].line}",
            detail=f"{pmcid}: no section headings",
        )
    abstract = RawAbstract(pmid=pmcid, origin=origin)
    for section in kept:
        role = Role(roles[section.heading])
        abstract.sentences += [Sentence(role=role, text=s) for s in split_sentences(" ".join(section.text))]
    return abstract


def pmcid_of(name: str, origin: str) -> str:
    stem = PurePosixPath(name).name.removesuffix(SUFFIX)
    if not _PMCID.match(stem):
        raise InputFormatError(origin, f"file name {PurePosixPath(name).name!r} is not PMC<digits>{SUFFIX}")
    return stem


def _decoded(data: bytes, origin: str) -> list[str]:
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputFormatError(origin, f"not UTF-8 text ({error.reason})", line) from error


def abstract_files(folder: Path) -> list[Path]:
    """The ``.abst`` files of ``folder`` or of its ``abstracts/`` (``annotations/abstracts/``) folder."""
    for candidate in (folder, folder / "abstracts", folder / "annotations" / "abstracts"):
        files = sorted(candidate.glob(f"*{SUFFIX}"))
        if files:
            return files
    return []


def is_abstract_folder(path: Path) -> bool:
    return path.is_dir() and bool(abstract_files(path))


def read_folder(folder: Path) -> Iterator[RawAbstract | Skip]:
    """Every article of a folder of ``.abst`` files, in file-name order."""
    files = abstract_files(folder)
    if not files:
        raise InputFormatError(str(folder), f"holds no {SUFFIX} files (nor does its abstracts/ folder)")
    for path in files:
        origin = str(path)
        yield parse_abstract_file(_decoded(path.read_bytes(), origin), origin, pmcid_of(path.name, origin))


def zip_members(archive: zipfile.ZipFile, folder: str | None) -> list[str]:
    """The ``.abst`` members of ``archive`` (under ``folder``, matched anywhere in the member's path,
    e.g. ``annotations/abstracts`` inside the repository archive's top folder), in name order."""
    names = [n for n in archive.namelist() if n.endswith(SUFFIX)]
    if folder:
        wanted = folder.strip("/") + "/"
        names = [n for n in names if f"/{wanted}" in f"/{PurePosixPath(n).parent}/"]
    return sorted(names)


def _listed_ids(path: Path, archive: zipfile.ZipFile, lists: tuple[str, ...]) -> set[str]:
    """The PMCIDs named by the id-list members ``lists`` (one number per line, as upstream's splits)."""
    ids: set[str] = set()
    for name in lists:
        matches = [n for n in archive.namelist() if n == name or n.endswith("/" + name)]
        if not matches:
            raise InputFormatError(str(path), f"has no member {name!r} (the article ids it leaves out)")
        for number, line in enumerate(_decoded(archive.read(matches[0]), f"{path}!{matches[0]}"), start=1):
            if value := line.strip():
                if not value.removeprefix("PMC").isdigit():
                    raise InputFormatError(f"{path}!{matches[0]}", f"not an article id: {value!r}", number)
                ids.add("PMC" + value.removeprefix("PMC"))
    return ids


def read_zip(
    path: Path, archive: zipfile.ZipFile, folder: str | None, excluded_ids: tuple[str, ...] = ()
) -> Iterator[RawAbstract | Skip]:
    """Every ``.abst`` member of an archive (the upstream repository's zip), but the articles the
    id-list members ``excluded_ids`` name (counted as ``excluded_article``)."""
    members = zip_members(archive, folder)
    if not members:
        where = f" under {folder!r}" if folder else ""
        raise InputFormatError(str(path), f"holds no {SUFFIX} files{where}")
    excluded = _listed_ids(path, archive, excluded_ids)
    for member in members:
        origin = f"{path}!{member}"
        if pmcid_of(member, origin) in excluded:
            yield Skip(reason="excluded_article", where=origin, detail=f"listed in {', '.join(excluded_ids)}")
            continue
        lines = _decoded(archive.read(member), origin)
        yield parse_abstract_file(lines, origin, pmcid_of(member, origin))
