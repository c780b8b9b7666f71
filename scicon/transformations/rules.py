"""Rule-based replacement: candidates drawn from the rule operators of :mod:`scicon.rules`
(negation, WordNet antonyms, polarity lexicon, numbers, quantifiers, modality, swaps)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from pydantic import Field

from scicon.assembly_context import AssemblyContext
from scicon.params import Section
from scicon.rules import RuleMutator
from scicon.transformations import TRANSFORMATIONS
from scicon.transformations.base import MutationRequest


class RuleReplacementSettings(Section):
    operators: tuple[str, ...] | None = Field(
        description="operator names (null: candidate_operators, those the negatives use)"
    )
    candidate_operators: tuple[str, ...] = Field(min_length=1, description="the operators of every rewriter")


class RuleReplacement:
    name = "rules"

    def __init__(self, operators: Sequence[str] | None = None):
        self.mutator = RuleMutator(operators)

    def propose(self, requests: Sequence[MutationRequest]) -> list[list[str | None]]:
        proposals = []
        for request in requests:
            edits = self.mutator.candidates(
                request.sentence2, request.count, random.Random(request.seed), request.context
            )
            texts: list[str | None] = [edit.text for edit in edits]
            # the operators may have fewer distinct edits than asked for: the rest failed
            proposals.append(texts + [None] * (request.count - len(texts)))
        return proposals


@TRANSFORMATIONS.register(
    "rules",
    settings=RuleReplacementSettings,
    description="the rule operators",
    reads={"candidate_operators": "candidates.operators"},
)
def rule_replacement(settings: RuleReplacementSettings, context: AssemblyContext) -> RuleReplacement:
    if settings.operators is not None:
        return RuleReplacement(settings.operators)
    return RuleReplacement(settings.candidate_operators)
