"""Every rule operator by name. Params and the EvoNLI transformation refer to these names."""

from __future__ import annotations

from scicon.errors import ParamsError
from scicon.records.base import TargetLabel
from scicon.rules import lexical, negation, quantities, swaps
from scicon.rules.operators import FunctionOperator

_C, _N = TargetLabel.CONTRADICTION, TargetLabel.NON_CONTRADICTION

OPERATORS: dict[str, FunctionOperator] = {
    op.name: op
    for op in (
        FunctionOperator(
            "negation_insert", _C, negation.insert_negation, "negate the main or claimed predicate"
        ),
        FunctionOperator("negation_remove", _C, negation.remove_negation, "remove a predicate's negation"),
        FunctionOperator(
            "significance_flip", _C, negation.flip_significance, "significant <-> not significant"
        ),
        FunctionOperator("wordnet_antonym", _C, lexical.wordnet_antonym, "WordNet antonym, frequent senses"),
        FunctionOperator("polarity_lexicon", _C, lexical.polarity_reversal, "biomedical polarity lexicon"),
        FunctionOperator(
            "numeric_mismatch", _C, quantities.numeric_mismatch, "change, swap or flip a number"
        ),
        FunctionOperator("quantifier_flip", _C, quantities.flip_quantifier, "all/some/none, more/fewer"),
        FunctionOperator("modality_flip", _C, quantities.flip_modality, "may/cannot, likely/unlikely"),
        FunctionOperator("role_swap", _C, swaps.role_swap, "swap the ranked entities"),
        FunctionOperator("entity_swap", _C, swaps.entity_swap, "replace an arm by the other arm"),
        FunctionOperator("eda_antonym", _C, lexical.eda_antonym, "EDA-style antonym from any sense"),
        FunctionOperator("synonym_control", _N, lexical.synonym_control, "label-preserving synonym swap"),
    )
}

# The default contradiction operators ("eda_antonym" belongs to the modified-EDA baseline).
CONTRADICTION_OPERATORS: tuple[str, ...] = tuple(
    name for name, op in OPERATORS.items() if op.label is TargetLabel.CONTRADICTION and name != "eda_antonym"
)
CONTROL_OPERATORS: tuple[str, ...] = tuple(
    name for name, op in OPERATORS.items() if op.label is TargetLabel.NON_CONTRADICTION
)


def resolve(names, what: str = "operators") -> tuple[str, ...]:
    """Validate operator names; a ParamsError names the unknown ones and lists the known."""
    names = tuple(names)
    unknown = [name for name in names if name not in OPERATORS]
    if unknown:
        raise ParamsError(f"unknown {what}: {', '.join(unknown)} (known: {', '.join(OPERATORS)})")
    if len(set(names)) != len(names):
        raise ParamsError(f"{what} listed more than once: {', '.join(names)}")
    return names
