"""Rule-made negatives, as the negatives stage writes them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from scicon.records.base import Record, TargetLabel, WordEdit


class RuleNegative(Record):
    """A rule-made edit of one sentence, paired with the sentence it was made from.

    A negating operator's output contradicts its own source sentence, not
    necessarily the other sentence of the pair, so ``premise`` is the unedited
    source and ``hypothesis`` its edit. Label-preserving controls carry
    NON_CONTRADICTION.
    """

    negative_id: str
    pair_id: str
    pmid: str
    source: Literal["sentence1", "sentence2"]
    premise: str
    hypothesis: str
    label: TargetLabel
    operator: str
    edits: tuple[WordEdit, ...]
    rule: str | None = Field(default=None, description="the operator's named rule or table row that made it")
