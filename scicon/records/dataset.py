"""SciCon rows, as the build stage writes them, and the candidate pairs it makes them from.

Candidates are defined here rather than in scicon.dataset so that scicon.labelled, which makes
them from the labelled NLI sets, need not import the package that imports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from scicon.records.base import Record


@dataclass(frozen=True)
class Candidate:
    """A labelled pair before deduplication, splitting and order randomisation.

    ``premise``/``hypothesis`` keep generation order (the hypothesis is the edited or
    second sentence), which the hypothesis-only baseline needs after the shuffle.
    """

    example_id: str
    pmid: str
    premise: str
    hypothesis: str
    label: int
    generator: str
    operator: str | None = None
    mutation_type: str | None = None
    # the sentence an edited hypothesis was made from (None: the pair is not an edit)
    original: str | None = None


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


class ThreeWayExample(Example):
    """A training row of the three-way NLI judge: its label is the class index of
    :data:`scicon.readers.rows.NLI_LABELS` (0 entailment, 1 neutral, 2 contradiction)."""

    label: int = Field(ge=0, le=2, description="0: entailment, 1: neutral, 2: contradiction")
