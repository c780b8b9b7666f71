"""What the evolve stage writes: accepted mutations and the per-pair search trace."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from scicon.records.base import Record, TargetLabel, WordEdit
from scicon.records.pairs import PairKind


class SearchStatus(StrEnum):
    """How one pair's search ended (a pair the teacher already calls a contradiction is skipped)."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"
    ERROR = "error"


class MutatedPair(Record):
    """An EvoNLI result accepted by the search: ``sentence2`` mutated until the teacher
    gives ``target_label`` a confidence of at least the target threshold."""

    pair_id: str
    pmid: str
    kind: PairKind
    sentence1: str
    original_sentence2: str
    sentence2: str
    target_label: TargetLabel
    confidence: float | None = Field(
        ge=0.0, le=1.0, description="the teacher's; None if it gave no usable answer (direct prompt only)"
    )
    similarity: float | None = Field(default=None, description="None when the check is off")
    claim: float | None = Field(default=None, description="None when the check is off")
    iteration: int = Field(ge=0, description="search iteration that accepted it (0: initial population)")
    edits: tuple[WordEdit, ...]
    recipe: str = Field(description="the named EvoNLI configuration that produced it")


class CandidateTrace(Record):
    """One proposed rewrite of sentence2 and what the search made of it."""

    text: str | None = Field(description="None when the transformation produced no usable rewrite")
    similarity: float | None = None
    claim: float | None = None
    confidence: float | None = Field(default=None, description="target-label confidence")
    rejected_by: str | None = Field(
        default=None,
        description="what rejected it: no_mutation, a constraint's name, or '<score>_low_mass' when the "
        "model gave its yes/no answer too little probability; None if it passed every check",
    )


class MemberTrace(Record):
    """One SAMPLEMUTATION: a population member, its candidates and the one kept (BESTCAND)."""

    parent: str
    candidates: tuple[CandidateTrace, ...]
    winner: int | None = Field(description="index of the kept candidate; None keeps the parent")


class GenerationTrace(Record):
    iteration: int = Field(ge=0)
    members: tuple[MemberTrace, ...]
    best_member: int | None = None
    best_confidence: float | None = None


class PairTrace(Record):
    """The full lineage of one pair's search: how a user audits a generated example."""

    pair_id: str
    pmid: str
    target_label: TargetLabel
    status: SearchStatus
    sentence1: str
    original_sentence2: str
    original_confidence: float | None = None
    generations: tuple[GenerationTrace, ...] = ()
    accepted: MutatedPair | None = None
    backbone_calls: int = Field(default=0, description="model calls the search asked for")
    cache_hits: int = Field(default=0, description="of those, answered from the call cache")
    error: str | None = None
    config_digest: str = Field(
        description="identifies the settings; a resumed run keeps only matching records"
    )
