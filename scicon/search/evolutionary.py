"""Algorithm 1 of the EvoNLI paper ("Evolutionary Self-Supervised Contradiction Detection for
Biomedical NLI"), with its four parts passed in: goal, constraints, transformation, settings.

    Population ← N_pop × SAMPLEMUTATION(P1, P2)
    repeat MAX_ITERATIONS times:
        best ← BESTCAND(Population); stop with success if CLASSIFY(best) ≥ T_conf
        Population ← SAMPLEMUTATION(P1, member) for each member
    failure

SAMPLEMUTATION draws N_candidates rewrites and keeps BESTCAND of them: among the
candidates whose similarity and claim scores reach their thresholds, the one the
teacher gives the highest target confidence (the first on ties). A member for which
no candidate passes keeps its parent. Only mutated members can be accepted.

Two departures from the literal pseudocode, neither changing a result: all members
of a generation are mutated in one batch (every candidate's scores in one backbone
call per score, cheapest check first, each distinct text scored once), and the
re-mutation after the last check is not made, since nothing would evaluate it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from scicon.params import Section
from scicon.records.corpus import Abstract
from scicon.records.evolve import GenerationTrace, MemberTrace, SearchStatus
from scicon.records.pairs import Pair
from scicon.search import SEARCHES
from scicon.search.base import Accepted, CandidateChecks, SearchOutcome, SearchParts
from scicon.seeds import derive_seed
from scicon.transformations.base import MutationRequest, Transformation


@dataclass(frozen=True)
class Member:
    text: str
    mutated: bool = False
    confidence: float | None = None
    similarity: float | None = None
    claim: float | None = None


class EvolutionarySettings(Section):
    """Algorithm 1's sizes (paper Table 6)."""

    population_size: int = Field(gt=0, description="N_pop: members mutated in each generation")
    candidates_per_mutation: int = Field(gt=0, description="N_candidates: rewrites drawn per mutation")
    max_iterations: int = Field(gt=0, description="MAX_ITERATIONS: generations before a pair fails")


class EvolutionarySearch:
    name = "evolutionary"

    def __init__(
        self, checks: CandidateChecks, transformation: Transformation, settings: EvolutionarySettings
    ):
        self.checks = checks
        self.goal = checks.goal
        self.transformation = transformation
        self.settings = settings
        self.max_generations = settings.max_iterations

    def run(self, pair: Pair, seed: int, context: Abstract | None = None) -> SearchOutcome:
        (original_confidence,) = self.goal.confidences([(pair.sentence1, pair.sentence2)], pair.sentence2)
        if self.goal.should_skip(original_confidence):
            return SearchOutcome(SearchStatus.SKIPPED, original_confidence)
        population = [Member(pair.sentence2)] * self.settings.population_size
        generations: list[GenerationTrace] = []
        for iteration in range(self.settings.max_iterations):
            population, trace = self._sample_mutations(pair, population, iteration, seed, context)
            best = _best_member(population)
            generations.append(
                trace.model_copy(
                    update={
                        "best_member": best,
                        "best_confidence": None if best is None else population[best].confidence,
                    }
                )
            )
            if best is not None and self.goal.is_complete(population[best].confidence):
                winner = population[best]
                accepted = Accepted(
                    winner.text, winner.confidence, winner.similarity, winner.claim, iteration
                )
                return SearchOutcome(
                    SearchStatus.SUCCEEDED, original_confidence, tuple(generations), accepted
                )
        return SearchOutcome(SearchStatus.FAILED, original_confidence, tuple(generations))

    def _sample_mutations(
        self, pair: Pair, population: list[Member], iteration: int, seed: int, context: Abstract | None
    ) -> tuple[list[Member], GenerationTrace]:
        requests = [
            MutationRequest(
                sentence1=pair.sentence1,
                sentence2=member.text,
                original=pair.sentence2,
                target=self.goal.label,
                seed=derive_seed(seed, iteration, index),
                count=self.settings.candidates_per_mutation,
                context=context,
            )
            for index, member in enumerate(population)
        ]
        proposals = self.transformation.propose(requests)
        checked = self.checks.check(
            pair, [(parent.text, texts) for parent, texts in zip(population, proposals, strict=True)]
        )
        next_population, members = [], []
        for parent, candidates in zip(population, checked, strict=True):
            winner = None
            for index, candidate in enumerate(candidates):
                if candidate.rejected_by is None and (
                    winner is None or candidate.confidence > candidates[winner].confidence
                ):
                    winner = index
            members.append(MemberTrace(parent=parent.text, candidates=tuple(candidates), winner=winner))
            if winner is None:
                next_population.append(parent)
            else:
                kept = candidates[winner]
                next_population.append(Member(kept.text, True, kept.confidence, kept.similarity, kept.claim))
        return next_population, GenerationTrace(iteration=iteration, members=tuple(members))


def _best_member(population: list[Member]) -> int | None:
    """BESTCAND over the population: the mutated member with the highest confidence."""
    best = None
    for index, member in enumerate(population):
        if member.mutated and (best is None or member.confidence > population[best].confidence):
            best = index
    return best


@SEARCHES.register(
    "evolutionary",
    settings=EvolutionarySettings,
    description="Algorithm 1: population, generations, BESTCAND",
)
def evolutionary(settings: EvolutionarySettings, parts: SearchParts) -> EvolutionarySearch:
    return EvolutionarySearch(parts.checks, parts.transformation, settings)
