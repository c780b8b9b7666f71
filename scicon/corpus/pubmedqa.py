"""PubMedQA's labelled set (``ori_pqal.json``) read as structured abstracts.

PubMedQA-L (*PubMedQA: A Dataset for Biomedical Research Question Answering*; MIT licence)
holds 1,000 PubMed abstracts as one JSON object keyed by PMID: ``CONTEXTS`` (the abstract's
sections but its conclusion, one string each), ``LABELS`` (each section's own heading) and
``LONG_ANSWER`` (the conclusion). Each section becomes the sentences of one of the five
PubMed RCT roles, split with pysbd; the long answer becomes the CONCLUSIONS. Headings vary
by journal ("PATIENTS AND METHODS", "MAIN OUTCOME", "CASE REPORTS"), so a heading is mapped
by the words it contains (:data:`HEADING_WORDS`), and one with none of them counts as METHODS:
the sections between an abstract's aim and its results describe what was done.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import BinaryIO

from scicon.corpus.model import RawAbstract
from scicon.corpus.pubmed_xml import split_sentences
from scicon.errors import InputFormatError
from scicon.records.base import Skip
from scicon.records.corpus import Role, Sentence

# The first word found in a heading decides its role, in this order.
HEADING_WORDS: tuple[tuple[str, Role], ...] = (
    ("CONCLUSION", Role.CONCLUSIONS),
    ("RESULT", Role.RESULTS),
    ("FINDING", Role.RESULTS),
    ("BACKGROUND", Role.BACKGROUND),
    ("INTRODUCTION", Role.BACKGROUND),
    ("CONTEXT", Role.BACKGROUND),
    ("RATIONALE", Role.BACKGROUND),
    ("OBJECTIVE", Role.OBJECTIVE),
    ("PURPOSE", Role.OBJECTIVE),
    ("AIM", Role.OBJECTIVE),
    ("GOAL", Role.OBJECTIVE),
    ("HYPOTHES", Role.OBJECTIVE),
)


def heading_role(heading: str) -> Role:
    upper = heading.upper()
    return next((role for word, role in HEADING_WORDS if word in upper), Role.METHODS)


def looks_like_pubmedqa(head: bytes) -> bool:
    """Whether a file's first bytes open a JSON object (PubMedQA's files are one object)."""
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")


def parse_pubmedqa(stream: BinaryIO, origin: str) -> Iterator[RawAbstract | Skip]:
    """One abstract per PMID, in file order; an entry whose sections and headings disagree is skipped."""
    try:
        data = json.loads(stream.read().decode("utf-8"))
    except UnicodeDecodeError as error:
        raise InputFormatError(origin, f"not UTF-8 text ({error.reason})") from error
    except json.JSONDecodeError as error:
        raise InputFormatError(origin, f"not valid JSON: {error.msg}", error.lineno) from error
    if not isinstance(data, dict):
        raise InputFormatError(origin, "expected one JSON object keyed by PMID (PubMedQA's ori_pqal.json)")
    for pmid, entry in data.items():
        where = f"{origin} PMID {pmid}"
        if not isinstance(entry, dict) or not isinstance(entry.get("CONTEXTS"), list):
            raise InputFormatError(
                origin, f"PMID {pmid}: no CONTEXTS list (is this PubMedQA's ori_pqal.json?)"
            )
        contexts, labels = entry["CONTEXTS"], entry.get("LABELS") or []
        if len(labels) != len(contexts):
            yield Skip(
                reason="unlabelled_sections",
                where=where,
                detail=f"{len(contexts)} sections, {len(labels)} headings",
            )
            continue
        abstract = RawAbstract(pmid=str(pmid), origin=where)
        for heading, text in zip(labels, contexts, strict=True):
            role = heading_role(str(heading))
            abstract.sentences += [Sentence(role=role, text=s) for s in split_sentences(str(text))]
        abstract.sentences += [
            Sentence(role=Role.CONCLUSIONS, text=s)
            for s in split_sentences(str(entry.get("LONG_ANSWER") or ""))
        ]
        yield abstract
