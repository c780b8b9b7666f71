"""In-domain judgements: the items an annotation round shows, and the labelled set read back."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from scicon.records.base import Record

NliLabel = Literal["contradiction", "entailment", "neutral"]


class RoundItem(Record):
    """A candidate pair sampled for annotation, with how it was made and how it was drawn.

    ``item_id`` is what annotators see; everything else stays in the round's private key.
    """

    item_id: str
    candidate_id: str = Field(description="digest of the two sentences: the same pair never enters twice")
    round: str
    pmid: str
    pmid2: str | None = Field(default=None, description="the abstract sentence2 came from, when another one")
    pair_id: str
    kind: str
    source: str = Field(
        description="original, rule_cross, control_cross, evonli_accepted, evonli_near_miss, ..."
    )
    generator: str
    operator: str | None = None
    mutation_type: str | None = None
    sentence1: str
    sentence2: str
    original: str | None = Field(default=None, description="the sentence an edited sentence2 was made from")
    teacher_probability: float | None = Field(
        default=None, description="the sampling teacher's P(contradiction)"
    )
    stratum: str
    sampling_weight: float = Field(gt=0, description="pool items of its stratum each sampled item stands for")
    readers: int = Field(ge=1, description="annotators who read it")


class ControlItem(Record):
    """A gold item hidden in a batch to measure its annotator; never trained on."""

    item_id: str
    gold_id: str
    gold: NliLabel
    garbled: int = Field(ge=0, le=1)
    sentence1: str
    sentence2: str


class Judgement(Record):
    """A judged pair in the gold file's format, with its provenance: a labelled set for the judges."""

    id: str
    pmid: str
    pair_id: str
    kind: str
    source: str
    generator: str
    operator: str | None
    mutation_type: str | None
    sentence1: str
    sentence2: str
    gold: NliLabel
    contradiction: int = Field(ge=0, le=1)
    votes: dict[str, int]
    unanimous: bool
    garbled: int = Field(ge=0, le=1)
    round: str
    annotators: int = Field(ge=1)
    sampling_weight: float = Field(gt=0)
    teacher_probability: float | None = None
    original: str | None = Field(default=None, description="the sentence an edited sentence2 was made from")
