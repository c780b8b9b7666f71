"""PubMed / MEDLINE baseline XML: structured abstracts by their ``NlmCategory`` labels.

NLM maps each labelled section of a structured abstract (``<AbstractText
Label="..." NlmCategory="RESULTS">``) to one of BACKGROUND, OBJECTIVE, METHODS,
RESULTS, CONCLUSIONS or UNASSIGNED. That is the same role set as PubMed RCT, which
makes every structured PubMed abstract usable, not only the 200k RCT release.
Sections are split into sentences with pysbd.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from functools import lru_cache
from typing import BinaryIO

from scicon.corpus.model import RawAbstract
from scicon.errors import InputFormatError
from scicon.records.base import Skip
from scicon.records.corpus import Role, Sentence

_ROLES = {role.value: role for role in Role}
_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=1)
def _segmenter():
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


def split_sentences(text: str) -> list[str]:
    return [s for s in (_SPACES.sub(" ", part).strip() for part in _segmenter().segment(text)) if s]


def parse_pubmed_xml(stream: BinaryIO, origin: str) -> Iterator[RawAbstract | Skip]:
    """Yield one :class:`RawAbstract` per structured article, and a :class:`Skip` for the rest."""
    try:
        for _event, element in ET.iterparse(stream, events=("end",)):
            if element.tag != "PubmedArticle":
                continue
            yield from _article(element, origin)
            element.clear()
    except ET.ParseError as error:
        line, _column = error.position
        raise InputFormatError(origin, f"not well-formed XML ({error.msg})", line) from error


def _article(article: ET.Element, origin: str) -> Iterator[RawAbstract | Skip]:
    pmid = (article.findtext("MedlineCitation/PMID") or "").strip()
    where = f"{origin} PMID {pmid or '?'}"
    if not pmid:
        yield Skip(reason="no_pmid", where=origin, detail="PubmedArticle without a PMID")
        return
    sections = article.findall("MedlineCitation/Article/Abstract/AbstractText")
    if not sections:
        yield Skip(reason="no_abstract", where=where)
        return
    if not any(section.get("NlmCategory") in _ROLES for section in sections):
        yield Skip(reason="unstructured_abstract", where=where, detail="no NlmCategory labels")
        return
    abstract = RawAbstract(pmid=pmid, origin=where)
    for section in sections:
        category = section.get("NlmCategory")
        text = "".join(section.itertext())
        if category not in _ROLES:
            label = section.get("Label") or category or "unlabelled"
            yield Skip(reason="unassigned_section", where=where, detail=f"section {label!r}")
            continue
        for sentence in split_sentences(text):
            abstract.sentences.append(Sentence(role=_ROLES[category], text=sentence))
    yield abstract
