"""Reading structured abstracts: PubMed RCT text, its archives, PubMed XML, downloads."""

from scicon.corpus.ingest import IngestResult, ingest

__all__ = ["IngestResult", "ingest"]
