"""Rule operators as registry entries: labels, the default sets derived from the registry,
name checks, and that a new operator is its function and decorator only."""

from __future__ import annotations

import random

import pytest

from scicon.errors import ParamsError
from scicon.records.base import TargetLabel
from scicon.rules import CONTRADICTION_OPERATORS, CONTROL_OPERATORS, RuleMutator
from scicon.rules.operator_sets import resolve, rule_operator
from scicon.rules.operators import OPERATORS


def test_every_operator_is_registered_with_a_label_and_a_description():
    assert OPERATORS.names() == (
        "eda_antonym",
        "entity_swap",
        "modality_flip",
        "negation_insert",
        "negation_remove",
        "numeric_mismatch",
        "polarity_lexicon",
        "quantifier_flip",
        "role_swap",
        "significance_flip",
        "synonym_control",
        "wordnet_antonym",
    )
    for name in OPERATORS.names():
        operator = rule_operator(name)
        assert isinstance(operator.label, TargetLabel) and operator.description, name
        assert operator.function.__module__.startswith("scicon.rules.operators."), name


def test_the_default_sets_come_from_the_registrations():
    contradictions = [n for n in OPERATORS.names() if rule_operator(n).label is TargetLabel.CONTRADICTION]
    assert CONTRADICTION_OPERATORS == tuple(n for n in contradictions if n != "eda_antonym")
    assert not rule_operator("eda_antonym").default  # the modified-EDA baseline's own operator
    assert CONTROL_OPERATORS == ("synonym_control",)
    assert RuleMutator().operators == CONTRADICTION_OPERATORS


def test_unknown_or_repeated_names_are_params_errors():
    with pytest.raises(ParamsError, match=r"unknown evolve.rule_operators: antonym \(known: eda_antonym, "):
        resolve(["negation_insert", "antonym"], "evolve.rule_operators")
    with pytest.raises(ParamsError, match="listed more than once"):
        resolve(["role_swap", "role_swap"])
    with pytest.raises(ParamsError, match="unknown rule operator 'antonym'"):
        rule_operator("antonym")


def test_an_operator_without_a_label_is_refused_when_it_registers():
    with pytest.raises(
        TypeError, match="rule operator 'unlabelled': registration keyword label: Field required"
    ):
        OPERATORS.register("unlabelled", description="no label")
    with pytest.raises(
        TypeError, match="rule operator 'mislabelled': registration keyword label: Input should be"
    ):
        OPERATORS.register("mislabelled", label="contradicts")
    assert "unlabelled" not in OPERATORS


def test_a_registered_function_is_an_operator_everywhere():
    """What adding an operator takes: the function and its decorator, nothing else."""
    name = "test_exclamation"

    def exclaim(analysis, context):
        return [("full_stop_to_exclamation", analysis.text.rstrip(".") + "!")]

    OPERATORS.register(name, label=TargetLabel.CONTRADICTION, description="a test operator")(exclaim)
    try:
        edits = RuleMutator([name]).candidates("Velanoxet reduced bleeding.", 3, random.Random(1))
        assert [(e.text, e.operator, e.rule) for e in edits] == [
            ("Velanoxet reduced bleeding!", name, "full_stop_to_exclamation")
        ]
        assert resolve([name]) == (name,)
        with pytest.raises(ValueError, match="registered twice"):
            OPERATORS.register(name, label=TargetLabel.CONTRADICTION)(lambda analysis, context: [])
    finally:
        del OPERATORS._entries[name]
        rule_operator.cache_clear()
