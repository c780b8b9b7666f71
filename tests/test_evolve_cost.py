"""The evolve-cost benchmark's accounting of a naive search, on hand-written traces."""

from __future__ import annotations

import pytest

from perf.evolve_cost import naive_backbone_calls
from scicon.records.base import TargetLabel
from scicon.records.evolve import CandidateTrace, GenerationTrace, MemberTrace, PairTrace
from scicon.transformations.mixed import share_out
from tests.evolve_helpers import evolve_params


def trace(candidates_per_member: list[list[str | None]], original_confidence: float | None = 0.1):
    members = tuple(
        MemberTrace(parent="p", candidates=tuple(CandidateTrace(text=t) for t in texts), winner=None)
        for texts in candidates_per_member
    )
    return PairTrace(
        pair_id="x",
        pmid="1",
        target_label=TargetLabel.CONTRADICTION,
        status="failed",
        sentence1="s1",
        original_sentence2="s2",
        original_confidence=original_confidence,
        generations=(GenerationTrace(iteration=0, members=members),),
        config_digest="d",
    )


def test_naive_search_scores_every_proposed_candidate_with_every_backbone_score():
    # two members of five candidates; one member has two candidates without a rewrite,
    # and the same text twice (a naive search scores it twice)
    traces = [trace([["a", "b", "c", "d", "e"], ["a", "a", None, None, "f"]])]
    paper = evolve_params(transformation="llm", similarity="llm", claim="llm", goal="llm")
    assert naive_backbone_calls(traces, paper) == {"generate": 10, "yes_no": 1 + 3 * 8}
    cheap_filters = evolve_params(
        transformation="mixed",
        similarity="embedding",
        claim="trained",
        goal="llm",
        settings={"transformation": {"mixed": {"parts": {"llm": 0.4, "rules": 0.6}}}},
    )
    assert naive_backbone_calls(traces, cheap_filters) == {"generate": 2 * 2, "yes_no": 1 + 8}
    rules_only = evolve_params(transformation="rules", similarity="off", claim="llm", goal="llm")
    assert naive_backbone_calls(traces, rules_only) == {"generate": 0, "yes_no": 1 + 2 * 8}
    classifier_goal = evolve_params(
        transformation="llm", similarity="embedding", claim="llm", goal="classifier"
    )
    assert naive_backbone_calls(traces, classifier_goal) == {"generate": 10, "yes_no": 8}
    # a pair that failed before its first score (a backbone error) adds nothing
    assert naive_backbone_calls([trace([], original_confidence=None)], paper) == {"generate": 0, "yes_no": 0}


@pytest.mark.parametrize(
    ("count", "shares", "expected"),
    [
        (5, [0.4, 0.6], [2, 3]),
        (5, [0.5, 0.5], [3, 2]),
        (4, [1.0, 0.0], [4, 0]),
        (3, [0.2, 0.3, 0.5], [1, 1, 1]),  # exact 0.6, 0.9, 1.5: the remainders go to 0.9 and 0.6
        (4, [0.4, 0.6], [2, 2]),  # exact 1.6, 2.4: the remainder to 1.6
    ],
)
def test_share_out_adds_up(count, shares, expected):
    assert share_out(count, shares) == expected
    assert sum(expected) == count
