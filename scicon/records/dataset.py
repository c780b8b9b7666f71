"""SciCon rows, as the build stage writes them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from scicon.records.base import Record


class Example(Record):
    """One row of SciCon: a sentence pair with a binary contradiction label."""

    example_id: str
    pmid: str
    sentence1: str
    sentence2: str
    label: int = Field(ge=0, le=1, description="1: contradiction, 0: non-contradiction")
    generator: str = Field(description="what produced the pair: evonli, original, rules, ...")
    operator: str | None = Field(default=None, description="rule operator or EvoNLI recipe")
    mutation_type: str | None = Field(default=None, description="appendix-D taxonomy, contradictions only")
    split: Literal["train", "dev", "test"]
