"""RuleMutator, the EvoNLI transformation: distinct candidates, seeded determinism, errors."""

from __future__ import annotations

import random

import pytest

from scicon.errors import ParamsError
from scicon.records.base import WordEdit
from scicon.rules import CONTRADICTION_OPERATORS, RuleEdit, RuleMutator
from tests.rules_fixtures import TRIAL

SENTENCE = "Velanoxet was more effective than warfarin in older adults (p<0.01)."


def test_candidates_are_distinct_edits_tagged_with_operator_and_diff():
    edits = RuleMutator().candidates(SENTENCE, 6, random.Random(3), context=TRIAL)
    assert len(edits) == 6
    assert len({e.text for e in edits}) == 6 and SENTENCE not in {e.text for e in edits}
    for edit in edits:
        assert isinstance(edit, RuleEdit)
        assert edit.operator in CONTRADICTION_OPERATORS and edit.rule
        assert edit.edits and all(isinstance(w, WordEdit) for w in edit.edits)


def test_same_rng_state_same_candidates_and_draws_spread_over_operators():
    mutator = RuleMutator()
    first = mutator.candidates(SENTENCE, 5, random.Random(11), context=TRIAL)
    again = RuleMutator().candidates(SENTENCE, 5, random.Random(11), context=TRIAL)
    assert first == again
    others = [RuleMutator().candidates(SENTENCE, 5, random.Random(seed), context=TRIAL) for seed in range(5)]
    assert any(o != first for o in others)
    assert len({e.operator for e in first}) >= 3


def test_fewer_candidates_when_the_operators_run_out():
    sentence = "Participants were followed up at the clinic."
    edits = RuleMutator(["negation_insert", "wordnet_antonym"]).candidates(sentence, 10, random.Random(0))
    assert [(e.operator, e.text) for e in edits] == [
        ("negation_insert", "Participants were not followed up at the clinic.")
    ]
    assert RuleMutator(["numeric_mismatch"]).candidates(sentence, 3, random.Random(0)) == []


def test_one_edit_records_the_changed_words():
    (edit,) = RuleMutator(["polarity_lexicon"]).candidates(
        "Mortality was lower with velanoxet.", 1, random.Random(0)
    )
    assert edit == RuleEdit(
        text="Mortality was higher with velanoxet.",
        operator="polarity_lexicon",
        edits=(WordEdit(op="replace", position=2, original="lower", replacement="higher"),),
        rule="high_low",
    )


def test_unknown_operators_are_named():
    with pytest.raises(ParamsError, match="unknown operators: antonyms, negate"):
        RuleMutator(["negation_insert", "antonyms", "negate"])


def test_default_operators_are_the_contradiction_operators():
    assert RuleMutator().operators == CONTRADICTION_OPERATORS
    assert "synonym_control" not in CONTRADICTION_OPERATORS and "eda_antonym" not in CONTRADICTION_OPERATORS
