"""Algorithm 1 branch by branch, with scripted goal, constraints and transformation."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from scicon.constraints.base import ConstraintCheck
from scicon.goal.base import TargetConfidence
from scicon.records.base import TargetLabel
from scicon.records.corpus import Role
from scicon.records.pairs import Pair, PairKind
from scicon.search.base import CandidateChecks
from scicon.search.direct import DirectPromptSearch
from scicon.search.evolutionary import EvolutionarySearch, EvolutionarySettings
from scicon.transformations.base import MutationRequest
from tests.params_defaults import section_values

PAIR = Pair(
    pair_id="P1-rc-1-2",
    pmid="P1",
    kind=PairKind.RESULT_CONCLUSION,
    sentence1="Bleeding occurred in 4% with velanoxet and 9% with warfarin.",
    sentence2="Velanoxet reduced bleeding.",
    role1=Role.RESULTS,
    role2=Role.CONCLUSIONS,
    index1=1,
    index2=2,
)


class Scores:
    """P(contradiction) of (sentence1, candidate) from a table; counts what it was asked."""

    name = "scripted"

    def __init__(self, table: dict[str, float], default: float = 0.1):
        self.table, self.default, self.asked = table, default, []

    def contradiction_probabilities(self, pairs, originals=None):
        self.asked.extend(second for _, second in pairs)
        self.originals = originals
        return [self.table.get(second, self.default) for _, second in pairs]


class Check:
    def __init__(self, kind: str, table: dict[str, float], threshold: float, cost: int, default: float = 1.0):
        self.kind, self.name, self.threshold, self.cost = kind, f"scripted-{kind}", threshold, cost
        self.table, self.default, self.asked = table, default, []

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float]:
        self.asked.extend(c.candidate for c in checks)
        return [self.table.get(c.candidate, self.default) for c in checks]

    def passes(self, score: float) -> bool:
        return score >= self.threshold


class Rewrites:
    """Candidates per (iteration, member) from a script; records every request."""

    name = "scripted"

    def __init__(self, script):
        self.script, self.requests = script, []

    def propose(self, requests: Sequence[MutationRequest]):
        batch = len([r for r in self.requests if r is None])
        self.requests.append(None)  # batch marker
        self.requests.extend(requests)
        return [self.script(batch, index, r) for index, r in enumerate(requests)]


def search(scores, rewrites, constraints=(), target=TargetLabel.CONTRADICTION, **settings):
    goal = TargetConfidence(scores, target, threshold=0.4)
    sizes = section_values("evolve")["settings"]["search"]["evolutionary"] | settings
    return EvolutionarySearch(
        CandidateChecks(goal, constraints=constraints), rewrites, EvolutionarySettings(**sizes)
    )


def test_stops_as_soon_as_the_initial_population_reaches_the_target():
    rewrites = Rewrites(lambda it, m, r: [f"weak {m}", f"strong {m}", None])
    scores = Scores({"strong 2": 0.9, "strong 0": 0.5})
    outcome = search(scores, rewrites, population_size=3, candidates_per_mutation=3).run(PAIR, seed=1)
    assert outcome.status == "succeeded"
    assert outcome.accepted.text == "strong 2" and outcome.accepted.confidence == 0.9
    assert outcome.accepted.iteration == 0
    assert len(outcome.generations) == 1
    assert rewrites.requests.count(None) == 1  # one batch for the whole population
    members = outcome.generations[0].members
    assert [m.winner for m in members] == [1, 0, 1]  # member 1: a tie at 0.1, the first wins
    assert members[0].candidates[2].rejected_by == "no_mutation"
    assert outcome.generations[0].best_member == 2


def test_fails_after_max_iterations_without_a_wasted_last_mutation():
    rewrites = Rewrites(lambda it, m, r: [f"{r.sentence2} +{it}{m}"])
    outcome = search(
        Scores({}), rewrites, population_size=2, candidates_per_mutation=1, max_iterations=4
    ).run(PAIR, seed=1)
    assert outcome.status == "failed" and outcome.accepted is None
    assert [g.iteration for g in outcome.generations] == [0, 1, 2, 3]
    assert rewrites.requests.count(None) == 4
    # each generation mutates the previous winners, not the original sentence
    last = outcome.generations[3].members[0]
    assert last.parent == "Velanoxet reduced bleeding. +00 +10 +20"


def test_each_constraint_rejects_and_later_scores_are_skipped():
    texts = ["off topic", "not a claim", "good"]
    rewrites = Rewrites(lambda it, m, r: texts)
    similarity = Check("similarity", {"off topic": 0.2}, threshold=0.5, cost=10)
    claim = Check("claim", {"not a claim": 0.3}, threshold=0.9, cost=1)
    scores = Scores({"good": 0.8, "off topic": 0.99, "not a claim": 0.99})
    outcome = search(scores, rewrites, [similarity, claim], population_size=1, candidates_per_mutation=3).run(
        PAIR, seed=1
    )
    candidates = {c.text: c for c in outcome.generations[0].members[0].candidates}
    # the cheaper claim check runs first; the similarity check never sees its rejects
    assert sorted(claim.asked) == sorted(texts)
    assert "not a claim" not in similarity.asked
    assert candidates["not a claim"].rejected_by == "claim" and candidates["not a claim"].similarity is None
    assert candidates["off topic"].rejected_by == "similarity" and candidates["off topic"].confidence is None
    assert candidates["good"].rejected_by is None
    # the goal is asked only about candidates that passed every constraint (and the original)
    assert sorted(scores.asked) == sorted([PAIR.sentence2, "good"])
    assert outcome.accepted.text == "good"
    assert (outcome.accepted.similarity, outcome.accepted.claim) == (1.0, 1.0)


def test_ties_go_to_the_first_candidate_and_duplicates_are_scored_once():
    rewrites = Rewrites(lambda it, m, r: ["same text", "tie b", "tie a"])
    scores = Scores({"tie a": 0.3, "tie b": 0.3, "same text": 0.1})
    outcome = search(scores, rewrites, population_size=3, candidates_per_mutation=3, max_iterations=1).run(
        PAIR, seed=1
    )
    assert [m.winner for m in outcome.generations[0].members] == [1, 1, 1]
    assert scores.asked.count("same text") == 1 and scores.asked.count("tie b") == 1
    assert outcome.generations[0].best_member == 0


def test_a_member_without_a_valid_candidate_keeps_its_parent_and_is_never_accepted():
    rewrites = Rewrites(lambda it, m, r: ["rejected"])
    similarity = Check("similarity", {"rejected": 0.0}, threshold=0.5, cost=1)
    scores = Scores({"rejected": 1.0, PAIR.sentence2: 0.0})
    outcome = search(
        scores, rewrites, [similarity], population_size=2, candidates_per_mutation=1, max_iterations=2
    ).run(PAIR, seed=1)
    assert outcome.status == "failed"
    assert all(m.parent == PAIR.sentence2 for g in outcome.generations for m in g.members)
    assert all(g.best_member is None for g in outcome.generations)


def test_an_original_pair_that_already_contradicts_is_skipped():
    rewrites = Rewrites(lambda it, m, r: ["anything"])
    outcome = search(Scores({PAIR.sentence2: 0.7}), rewrites, population_size=2).run(PAIR, seed=1)
    assert outcome.status == "skipped" and outcome.original_confidence == 0.7
    assert rewrites.requests == []


def test_the_non_contradiction_target_uses_one_minus_p_contradiction():
    rewrites = Rewrites(lambda it, m, r: ["paraphrase", "flip"])
    scores = Scores({"paraphrase": 0.2, "flip": 0.95, PAIR.sentence2: 0.05})
    outcome = search(
        scores, rewrites, target=TargetLabel.NON_CONTRADICTION, population_size=1, candidates_per_mutation=2
    ).run(PAIR, seed=1)
    # the unmutated pair already meets this goal, but only a mutation can be accepted
    assert outcome.status == "succeeded"
    assert outcome.accepted.text == "paraphrase"
    assert outcome.accepted.confidence == pytest.approx(0.8)
    requests = [r for r in rewrites.requests if r is not None]
    assert requests[0].target is TargetLabel.NON_CONTRADICTION


def test_seeds_differ_per_member_and_iteration_but_not_between_runs():
    script = lambda it, m, r: [f"{r.sentence2} x"]  # noqa: E731
    first, second = Rewrites(script), Rewrites(script)
    settings = dict(population_size=2, candidates_per_mutation=1, max_iterations=2)
    search(Scores({}), first, **settings).run(PAIR, seed=5)
    search(Scores({}), second, **settings).run(PAIR, seed=5)
    seeds = [r.seed for r in first.requests if r is not None]
    assert seeds == [r.seed for r in second.requests if r is not None]
    assert len(set(seeds)) == 4


def test_direct_prompt_takes_one_rewrite_without_filters():
    rewrites = Rewrites(lambda it, m, r: ["Velanoxet increased bleeding."])
    goal = TargetConfidence(Scores({"Velanoxet increased bleeding.": 0.2}), TargetLabel.CONTRADICTION, 0.4)
    outcome = DirectPromptSearch(CandidateChecks(goal), rewrites).run(PAIR, seed=3)
    assert outcome.status == "succeeded"  # no goal check: the rewrite is taken as it is
    assert outcome.accepted.confidence == 0.2 and outcome.accepted.similarity is None
    failed = DirectPromptSearch(CandidateChecks(goal), Rewrites(lambda it, m, r: [None])).run(PAIR, seed=3)
    assert (
        failed.status == "failed"
        and failed.generations[0].members[0].candidates[0].rejected_by == "no_mutation"
    )
