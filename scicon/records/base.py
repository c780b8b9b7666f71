"""The shared vocabulary of every stage record: the immutable base, skips, target labels and word edits.

Every stage output is JSON Lines of one of the models in :mod:`scicon.records`. Loading
validates each line, so a hand-edited or truncated file fails with the file and line named
(see :func:`scicon.io.read_jsonl`) instead of producing a silently wrong dataset. The models
are split by the stage that writes them, so a stage depends only on the records it reads.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Record(BaseModel):
    """Base for stage records: immutable, and unknown fields are an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Skip(Record):
    """Something a stage left out, with where it was and why (nothing is dropped silently)."""

    reason: str
    where: str
    detail: str = ""


class TargetLabel(StrEnum):
    """The label a generated pair is meant to carry (paper Algorithm 1, L_target)."""

    CONTRADICTION = "contradiction"
    NON_CONTRADICTION = "non_contradiction"


class WordEdit(Record):
    """One word-level edit of a mutation (see :mod:`scicon.textdiff`)."""

    op: Literal["replace", "insert", "delete"]
    position: int = Field(ge=0, description="index of the first affected word of the original")
    original: str = Field(description="words removed ('' for an insertion)")
    replacement: str = Field(description="words inserted ('' for a deletion)")
