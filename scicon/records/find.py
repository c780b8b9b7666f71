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
    question: str | None = Field(
        default=None, description="the question a claims file puts it under: claims are paired within it"
    )


class NotComparable(Record):
    """Why a pair is not comparable: the check that saw it and what differs."""

    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


class VerifierRead(Record):
    """What the verifier (``find.verifier``) gave a pair it re-read: plain, in both orders."""

    score: float = Field(description="mean of the verifier's calibrated P(contradiction) in both orders")
    score_ab: float
    score_ba: float
    ranked_by: float = Field(
        description="the score the re-read pairs are ranked by (find.verifier_rank: the verifier's, or "
        "the mean of it and the classifier's)"
    )


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
    flagged: bool = Field(description="comparable and among the find.flag_rate best-scored pairs")
    same_topic: float = Field(description="calibrated P(same topic) of the two claims")
    cosine: float
    route: str = Field(description="how it became a candidate: neighbours, shared terms or question")
    comparable: bool
    not_comparable: tuple[NotComparable, ...] = Field(
        description="why not, as the text shows it (empty when comparable)"
    )
    shared_terms: tuple[str, ...]
    question: str = Field(description="the question cluster (stance group) the pair belongs to")
    # left out of the file when absent, so that a run without a re-read writes what it wrote before
    verifier: VerifierRead | None = Field(
        default=None,
        exclude_if=lambda read: read is None,
        description="the verifier's re-read, for the find.verifier_top best-ranked scored pairs",
    )


class Stance(Record):
    claim: Claim
    stance: str = Field(description="yes (the reference's side), no (the other side) or neither")
    confidence: float = Field(description="probability that it stands where the split puts it")


class StanceGroupRecord(Record):
    """Where each claim of one question stands: a two-way split of the question's claims that
    agrees best with all of its scored pairs (:mod:`scicon.find.stance`)."""

    question: str
    asked: str | None = Field(description="the question's text, when a claims file gives it")
    reference: Claim
    members: tuple[Stance, ...]
    counts: dict[str, int] = Field(description="claims per stance: yes, no, neither")
    agreement: float = Field(description="share of the pairs' total weight the split agrees with")
    disagreeing: tuple[str, ...] = Field(description="pairs across the split, by score, highest first")
    overruled: tuple[str, ...] = Field(description="flagged pairs the split leaves on one side")
