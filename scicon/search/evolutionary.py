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

from collections.abc import Sequence
from dataclasses import dataclass

from scicon.constraints.base import Constraint, ConstraintCheck
from scicon.goal.base import TargetConfidence
from scicon.records.corpus import Abstract
from scicon.records.evolve import CandidateTrace, GenerationTrace, MemberTrace, SearchStatus
from scicon.records.pairs import Pair
from scicon.search import SEARCHES
from scicon.search.base import Accepted, SearchOutcome, SearchParts, SearchSettings
from scicon.seeds import derive_seed
from scicon.transformations.base import MutationRequest, Transformation


@dataclass(frozen=True)
class Member:
    text: str
    mutated: bool = False
    confidence: float | None = None
    similarity: float | None = None
    claim: float | None = None


# the scores a candidate's trace keeps (an edit constraint's verdict is its rejected_by)
_RECORDED_SCORES = ("similarity", "claim")


@dataclass
class _Scores:
    similarity: float | None = None
    claim: float | None = None
    confidence: float | None = None
    rejected_by: str | None = None


class EvolutionarySearch:
    name = "evolutionary"

    def __init__(
        self,
        goal: TargetConfidence,
        constraints: Sequence[Constraint],
        transformation: Transformation,
        settings: SearchSettings,
        edits: Sequence[Constraint] = (),
    ):
        self.goal = goal
        self.edits = list(edits)
        # cheapest first: a candidate that fails a cheap check is never sent to a costly one
        self.constraints = sorted(constraints, key=lambda c: c.cost)
        self.transformation = transformation
        self.settings = settings

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
        not_edits = {
            (m, j): name
            for m, (parent, texts) in enumerate(zip(population, proposals, strict=True))
            for j, name in enumerate(rejected_edits(self.edits, pair, parent.text, texts))
            if name is not None
        }
        scores = self._score(
            {
                text
                for m, texts in enumerate(proposals)
                for j, text in enumerate(texts)
                if text is not None and (m, j) not in not_edits
            },
            pair,
        )

        next_population, members = [], []
        for m, (parent, texts) in enumerate(zip(population, proposals, strict=True)):
            candidates, winner = [], None
            for index, text in enumerate(texts):
                if text is None:
                    candidates.append(CandidateTrace(text=None, rejected_by="no_mutation"))
                    continue
                if (m, index) in not_edits:
                    candidates.append(CandidateTrace(text=text, rejected_by=not_edits[(m, index)]))
                    continue
                score = scores[text]
                candidates.append(CandidateTrace(text=text, **vars(score)))
                if score.rejected_by is None and (
                    winner is None or score.confidence > candidates[winner].confidence
                ):
                    winner = index
            members.append(MemberTrace(parent=parent.text, candidates=tuple(candidates), winner=winner))
            if winner is None:
                next_population.append(parent)
            else:
                kept = candidates[winner]
                next_population.append(Member(kept.text, True, kept.confidence, kept.similarity, kept.claim))
        return next_population, GenerationTrace(iteration=iteration, members=tuple(members))

    def _score(self, texts: set[str], pair: Pair) -> dict[str, _Scores]:
        """Every distinct candidate once: constraints in cost order, the goal only for survivors."""
        ordered = sorted(texts)
        scores = {text: _Scores() for text in ordered}
        alive = ordered
        for constraint in self.constraints:
            checks = [ConstraintCheck(text, pair.sentence1, pair.sentence2) for text in alive]
            values = constraint.scores(checks)
            survivors = []
            for text, value in zip(alive, values, strict=True):
                if constraint.kind in _RECORDED_SCORES:
                    setattr(scores[text], constraint.kind, value)
                if value is None:
                    scores[text].rejected_by = f"{constraint.kind}_low_mass"
                elif constraint.passes(value):
                    survivors.append(text)
                else:
                    scores[text].rejected_by = constraint.kind
            alive = survivors
        for text, confidence in zip(
            alive,
            self.goal.confidences([(pair.sentence1, text) for text in alive], pair.sentence2),
            strict=True,
        ):
            scores[text].confidence = confidence
            if confidence is None:
                scores[text].rejected_by = "target_low_mass"
        return scores


def rejected_edits(
    edits: Sequence[Constraint], pair: Pair, parent: str, texts: Sequence[str | None]
) -> list[str | None]:
    """Per candidate, the first edit constraint it fails (None: passes them all, or no text)."""
    rejected: list[str | None] = [None] * len(texts)
    alive = [j for j, text in enumerate(texts) if text is not None]
    for edit in edits:
        checks = [ConstraintCheck(texts[j], pair.sentence1, pair.sentence2, parent) for j in alive]
        survivors = []
        for j, score in zip(alive, edit.scores(checks), strict=True):
            if score is not None and edit.passes(score):
                survivors.append(j)
            else:
                rejected[j] = edit.name
        alive = survivors
    return rejected


def _best_member(population: list[Member]) -> int | None:
    """BESTCAND over the population: the mutated member with the highest confidence."""
    best = None
    for index, member in enumerate(population):
        if member.mutated and (best is None or member.confidence > population[best].confidence):
            best = index
    return best


@SEARCHES.register("evolutionary", description="Algorithm 1: population, generations, BESTCAND")
def evolutionary(settings: None, parts: SearchParts) -> EvolutionarySearch:
    return EvolutionarySearch(parts.goal, parts.constraints, parts.transformation, parts.sizes, parts.edits)
