"""What the corpus parsers yield before ingest validates and samples it."""

from __future__ import annotations

from dataclasses import dataclass, field

from scicon.records.corpus import Sentence


@dataclass
class RawAbstract:
    pmid: str
    origin: str
    sentences: list[Sentence] = field(default_factory=list)
    detokenized: int = 0
