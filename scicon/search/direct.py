"""The direct-prompt baseline (paper Table 2, "Direct LLM Prompt, no algo").

One rewrite per pair from the word-replacement prompt, no search and no filters (the
edit constraints still apply: an empty or unchanged answer is no rewrite at all): the
rewrite is taken as the target label. Its teacher confidence is still measured
and recorded, which shows how often a single prompt would have met the goal.
"""

from __future__ import annotations

from scicon.records.corpus import Abstract
from scicon.records.evolve import GenerationTrace, MemberTrace, SearchStatus
from scicon.records.pairs import Pair
from scicon.search import SEARCHES
from scicon.search.base import NO_TARGET_ANSWER, Accepted, CandidateChecks, SearchOutcome, SearchParts
from scicon.seeds import derive_seed
from scicon.transformations.base import MutationRequest, Transformation


class DirectPromptSearch:
    name = "direct_prompt"
    max_generations = 1  # its one prompt

    def __init__(self, checks: CandidateChecks, transformation: Transformation):
        # no filters: the edit constraints and the teacher's confidence alone
        self.checks = checks.without_constraints()
        self.transformation = transformation

    def run(self, pair: Pair, seed: int, context: Abstract | None = None) -> SearchOutcome:
        request = MutationRequest(
            sentence1=pair.sentence1,
            sentence2=pair.sentence2,
            original=pair.sentence2,
            target=self.checks.goal.label,
            seed=derive_seed(seed, 0, 0),
            count=1,
            context=context,
        )
        ((text,),) = self.transformation.propose([request])
        ((candidate,),) = self.checks.check(pair, [(pair.sentence2, [text])])
        winner, accepted = None, None
        if candidate.rejected_by in (None, NO_TARGET_ANSWER):
            # taken as the target label whatever the teacher says, no answer included
            candidate, winner = candidate.model_copy(update={"rejected_by": None}), 0
            accepted = Accepted(candidate.text, candidate.confidence, None, None, 0)
        member = MemberTrace(parent=pair.sentence2, candidates=(candidate,), winner=winner)
        generation = GenerationTrace(
            iteration=0,
            members=(member,),
            best_member=None if accepted is None else 0,
            best_confidence=None if accepted is None else accepted.confidence,
        )
        status = SearchStatus.SUCCEEDED if accepted else SearchStatus.FAILED
        return SearchOutcome(status, None, (generation,), accepted)


# Under any other transformation the one "direct prompt" rewrite would not be a prompt.
@SEARCHES.register(
    "direct_prompt",
    requires={"transformation": ("llm",)},
    description="one rewrite per pair, no search and no filters (paper Table 2)",
)
def direct_prompt(settings: None, parts: SearchParts) -> DirectPromptSearch:
    return DirectPromptSearch(parts.checks, parts.transformation)
