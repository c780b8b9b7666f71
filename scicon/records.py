"""Typed records that travel between stages, with JSON round-trips.

Every stage output is JSON Lines of one of these models. Loading validates each
line, so a hand-edited or truncated file fails with the file and line named
(see :func:`scicon.io.read_jsonl`) instead of producing a silently wrong dataset.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Role(StrEnum):
    """Rhetorical role of a sentence in a structured abstract (PubMed RCT labels)."""

    BACKGROUND = "BACKGROUND"
    OBJECTIVE = "OBJECTIVE"
    METHODS = "METHODS"
    RESULTS = "RESULTS"
    CONCLUSIONS = "CONCLUSIONS"


class Record(BaseModel):
    """Base for stage records: immutable, and unknown fields are an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Sentence(Record):
    role: Role
    text: str = Field(min_length=1)


class Abstract(Record):
    """One structured abstract, sentences in document order."""

    pmid: str = Field(min_length=1)
    sentences: tuple[Sentence, ...]
    origin: str = Field(description="where it was read: file (or archive member) and header line")

    def indices(self, role: Role) -> list[int]:
        return [i for i, sentence in enumerate(self.sentences) if sentence.role is role]


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
    sentence2_generated: bool = Field(
        default=False, description="sentence2 was written by the backbone (abstract had no conclusion)"
    )


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
    confidence: float = Field(ge=0.0, le=1.0)
    similarity: float | None = Field(default=None, description="None when the check is off")
    claim: float | None = Field(default=None, description="None when the check is off")
    iteration: int = Field(ge=0, description="search iteration that accepted it (0: initial population)")
    edits: tuple[WordEdit, ...]
    recipe: str = Field(description="the named EvoNLI configuration that produced it")


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


class CandidateTrace(Record):
    """One proposed rewrite of sentence2 and what the search made of it."""

    text: str | None = Field(description="None when the transformation produced no usable rewrite")
    similarity: float | None = None
    claim: float | None = None
    confidence: float | None = Field(default=None, description="target-label confidence")
    rejected_by: str | None = Field(
        default=None, description="no_mutation, similarity or claim; None if it passed every check"
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
    status: Literal["succeeded", "failed", "skipped", "error"]
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
