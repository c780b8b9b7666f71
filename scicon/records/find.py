"""What the finder reads and writes: claims, and the ranked claim pairs of `data/find`."""

from __future__ import annotations

from pydantic import Field

from scicon.records.base import Record


class Claim(Record):
    """A claim of one study: a conclusion (or result) sentence, or a line of a claims file."""

    claim_id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    group: str = Field(
        min_length=1, description="the study it comes from: claims of one group are never paired"
    )
    pmid: str | None = None
    role: str | None = None
    position: int | None = Field(default=None, description="sentence index in its abstract")
    evidence: str | None = Field(default=None, description="its abstract's result sentence closest to it")
    evidence_position: int | None = None


class FoundPair(Record):
    """Two claims of different studies about the same question, scored for contradiction."""

    rank: int = Field(ge=1)
    pair_id: str
    a: Claim
    b: Claim
    score: float | None = Field(
        description="mean of the calibrated P(contradiction) in both sentence orders; "
        "none for a pair that is not comparable (never scored: the cheap check goes first)"
    )
    score_ab: float | None
    score_ba: float | None
    flagged: bool = Field(description="comparable and score at or above find.threshold")
    same_topic: float = Field(description="calibrated P(same topic) of the two claims")
    cosine: float
    comparable: bool
    not_comparable: tuple[str, ...] = Field(
        description="why not, as the text shows it (empty when comparable)"
    )
    shared_terms: tuple[str, ...]
    question: str = Field(description="the question cluster (stance group) the pair belongs to")


class Stance(Record):
    claim: Claim
    stance: str = Field(description="yes (says what the reference says), no (the opposite), neither or mixed")


class StanceGroupRecord(Record):
    """Where each study of one question stands, relative to the question's reference claim."""

    question: str
    reference: Claim
    members: tuple[Stance, ...]
