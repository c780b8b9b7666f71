"""Parameters of the ingest stage (`ingest` in params.yaml)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from scicon.errors import ParamsError
from scicon.params import Section

_Name = Annotated[str, Field(min_length=1)]
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class SourceSpec:
    """One corpus to read: a local path, an http(s) URL or a named source, with its split and pin."""

    source: str
    split: str | None
    sha256: str | None


class IngestParams(Section):
    source: _Name | list[_Name] = Field(
        min_length=1,
        description="local path (file or folder), http(s) URL or named source; a list reads several",
    )
    split: str | None | list[str | None] = Field(
        description="split of a named source, or member of an archive; a list when source is one"
    )
    sha256: str | None | list[str | None] = Field(description="pinned SHA-256; a list when source is one")
    watched: str = Field(
        min_length=1,
        description="the file or folder DVC checks before deciding whether ingest reruns: every local "
        "source must be it or lie inside it, so an edit of the source reruns ingest",
    )
    max_abstracts: int | None = Field(gt=0)
    seed: int
    detokenize: Literal["auto", "always", "never"]

    @field_validator("sha256")
    @classmethod
    def _hex_digests(cls, value: str | None | list[str | None]) -> str | None | list[str | None]:
        for pin in value if isinstance(value, list) else [value]:
            if pin is not None and not _SHA256.fullmatch(pin):
                raise ValueError("String should match pattern '^[0-9a-f]{64}$' (a lower-case hex SHA-256)")
        return value

    @model_validator(mode="after")
    def _lists_match(self) -> IngestParams:
        count = len(self.source) if isinstance(self.source, list) else None
        for key in ("split", "sha256"):
            value = getattr(self, key)
            if isinstance(value, list) and len(value) != count:
                wanted = f"{count} entries, one per source" if count else "one value (source is not a list)"
                raise ValueError(f"ingest.{key}: expected {wanted}, got a list of {len(value)}")
        return self

    def _per_source(self, key: str) -> list[str | None]:
        count = len(self.source) if isinstance(self.source, list) else 1
        value = getattr(self, key)
        return list(value) if isinstance(value, list) else [value] * count

    def require_watched(self) -> None:
        """Stop when a local source is neither ``watched`` nor inside it: DVC would not see it change."""
        watched = Path(self.watched).expanduser().resolve()
        for spec in self.sources():
            path = Path(spec.source).expanduser()
            if path.exists() and not path.resolve().is_relative_to(watched):
                raise ParamsError(
                    f"ingest.source {spec.source} is not ingest.watched ({self.watched}) nor inside it, so "
                    f"DVC would not rerun ingest when it changes: add -S ingest.watched={spec.source} (or a "
                    "folder holding every local source)"
                )

    def sources(self) -> list[SourceSpec]:
        """The corpora to read, in order (one when ``source`` is a string)."""
        names = self.source if isinstance(self.source, list) else [self.source]
        return [
            SourceSpec(name, split, sha256)
            for name, split, sha256 in zip(
                names, self._per_source("split"), self._per_source("sha256"), strict=True
            )
        ]
