"""Abstracts as the ingest stage writes them."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from scicon.records.base import Record


class Role(StrEnum):
    """Rhetorical role of a sentence in a structured abstract (PubMed RCT labels)."""

    BACKGROUND = "BACKGROUND"
    OBJECTIVE = "OBJECTIVE"
    METHODS = "METHODS"
    RESULTS = "RESULTS"
    CONCLUSIONS = "CONCLUSIONS"


class Sentence(Record):
    role: Role
    text: str = Field(min_length=1)


class Abstract(Record):
    """One structured abstract, sentences in document order."""

    pmid: str = Field(min_length=1)
    sentences: tuple[Sentence, ...]
    origin: str = Field(description="where it was read: file (or archive member) and header line")

    def indices(self, role: Role) -> list[int]:
        return [i for i, sentence in enumerate(self.sentences) if sentence.role is role]
