"""Pair construction: both kinds, the cheap result selectors, caps and skips."""

from __future__ import annotations

import pytest

from scicon.errors import NoWorkError, ParamsError
from scicon.pairing import build_pairs, make_cheap_selector
from scicon.pairing.params import PairsParams
from scicon.records.corpus import Role
from scicon.records.pairs import PairKind
from tests.builders import abstract
from tests.params_defaults import section

TRIAL = abstract(
    "P1",
    ("METHODS", "Adults were randomised to velanoxet or warfarin."),
    ("RESULTS", "Mean age was 71 years in both groups."),
    ("RESULTS", "Major bleeding occurred in 4% of velanoxet patients and 9% of warfarin patients."),
    ("RESULTS", "Stroke rates were similar with velanoxet and warfarin."),
    ("CONCLUSIONS", "Velanoxet reduced major bleeding compared with warfarin."),
    ("CONCLUSIONS", "Stroke prevention with velanoxet was similar to warfarin."),
    ("CONCLUSIONS", "Velanoxet should be considered for older adults."),
    ("CONCLUSIONS", "Registration: DEMO-9."),
)


def params(**overrides) -> PairsParams:
    values = dict(kinds=["conclusion_conclusion", "result_conclusion"], min_words=4)
    values.update(overrides)
    return section("pairs", PairsParams, **values)


@pytest.mark.parametrize("selector", ["tfidf", "overlap"])
def test_result_selectors_pick_the_supporting_result(selector):
    result = build_pairs([TRIAL], params(kinds=["result_conclusion"]), make_cheap_selector(selector))
    chosen = {pair.index2: pair.index1 for pair in result.pairs}
    assert chosen[4] == 2  # bleeding conclusion ← bleeding result
    assert chosen[5] == 3  # stroke conclusion ← stroke result
    for pair in result.pairs:
        assert pair.kind is PairKind.RESULT_CONCLUSION
        assert (pair.role1, pair.role2) == (Role.RESULTS, Role.CONCLUSIONS)
        assert pair.selector == selector and pair.selector_score is not None
        assert pair.pair_id == f"P1-rc-{pair.index1}-{pair.index2}"


def test_conclusion_pairs_prefer_adjacent_sentences_and_respect_the_cap():
    result = build_pairs(
        [TRIAL],
        params(kinds=["conclusion_conclusion"], max_conclusion_pairs_per_abstract=2),
        make_cheap_selector("tfidf"),
    )
    assert [(p.index1, p.index2) for p in result.pairs] == [(4, 5), (5, 6)]
    assert [p.sentence2 for p in result.pairs][
        0
    ] == "Stroke prevention with velanoxet was similar to warfarin."
    assert result.metrics["skipped"]["conclusion_pair_cap"] == 1  # (4, 6)
    # the four-word-minimum rule removed the registration line before pairing
    assert result.metrics["skipped"]["sentence_too_short"] == 1


def test_abstracts_without_conclusions_or_results_are_reported():
    no_conclusion = abstract("P2", ("RESULTS", "Pain fell by half with honey syrup."))
    no_result = abstract("P3", ("CONCLUSIONS", "Honey syrup relieved night-time cough in children."))
    result = build_pairs([no_conclusion, no_result, TRIAL], params(), make_cheap_selector("tfidf"))
    assert {pair.pmid for pair in result.pairs} == {TRIAL.pmid}
    assert result.metrics["skipped"]["no_conclusions"] == 1
    assert result.metrics["skipped"]["no_results_sentence"] == 1
    assert result.metrics["abstracts_with_pairs"] == 1
    # the same corpus without the trial gives no pair at all: an error naming why, not an empty file
    with pytest.raises(NoWorkError, match=r"from 2 abstracts \(no_conclusions 1, no_results_sentence 1"):
        build_pairs([no_conclusion, no_result], params(), make_cheap_selector("tfidf"))


def test_result_pair_cap_and_duplicates():
    twin = abstract(
        "P4",
        ("RESULTS", "Fever resolved sooner with drug X than with placebo."),
        ("CONCLUSIONS", "Drug X shortened fever in children."),
        ("CONCLUSIONS", "Drug X shortened fever in children."),
    )
    result = build_pairs(
        [twin],
        params(kinds=["result_conclusion"], max_result_pairs_per_abstract=5),
        make_cheap_selector("overlap"),
    )
    assert len(result.pairs) == 1
    assert result.metrics["skipped"]["duplicate_pair"] == 1
    capped = build_pairs(
        [TRIAL],
        params(kinds=["result_conclusion"], max_result_pairs_per_abstract=1),
        make_cheap_selector("tfidf"),
    )
    assert [p.index2 for p in capped.pairs] == [4]
    assert capped.metrics["skipped"]["result_pair_cap"] == 2


def test_unknown_selector_is_a_params_error():
    with pytest.raises(ParamsError, match="unknown result selector 'bm25'"):
        make_cheap_selector("bm25")
