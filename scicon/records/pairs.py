"""Entailing sentence pairs, as the pairs stage writes them."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from scicon.records.base import Record
from scicon.records.corpus import Role


class PairKind(StrEnum):
    """The two entailing pair types of the EvoNLI paper, section 3.1."""

    CONCLUSION_CONCLUSION = "conclusion_conclusion"
    RESULT_CONCLUSION = "result_conclusion"

    @property
    def short(self) -> str:
        return {"conclusion_conclusion": "cc", "result_conclusion": "rc"}[self.value]


class Pair(Record):
    """An entailing sentence pair from one abstract.

    ``sentence2`` is the sentence EvoNLI mutates; ``sentence1`` stays fixed (the
    supporting result, or the earlier conclusion).
    """

    pair_id: str
    pmid: str
    kind: PairKind
    sentence1: str
    sentence2: str
    role1: Role
    role2: Role
    index1: int = Field(ge=0)
    index2: int = Field(ge=0)
    selector: str | None = Field(
        default=None, description="how sentence1 was chosen (result-conclusion pairs only)"
    )
    selector_score: float | None = None
    entailment: float | None = Field(
        default=None,
        description="the entailment judge's calibrated P(sentence1 entails sentence2), when it was used",
    )
    sentence2_generated: bool = Field(
        default=False, description="sentence2 was written by the backbone (abstract had no conclusion)"
    )
