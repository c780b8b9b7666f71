"""Parameters of the ingest stage (`ingest` in params.yaml)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from scicon.params import Section


class IngestParams(Section):
    source: str = Field(min_length=1, description="local path, http(s) URL or named source")
    split: str | None = Field(description="split of a named source, or member of an archive")
    sha256: str | None = Field(pattern=r"^[0-9a-f]{64}$")
    max_abstracts: int | None = Field(gt=0)
    seed: int
    detokenize: Literal["auto", "always", "never"]
