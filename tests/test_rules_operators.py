"""Each operator on hand-written (fictional) trial sentences: exact outputs, grammar cases,
and sentences it must leave alone."""

from __future__ import annotations

import pytest

from scicon.records.base import TargetLabel
from scicon.rules.context import abstract_context
from scicon.rules.operator_sets import CONTROL_OPERATORS, rule_operator
from scicon.rules.operators import OPERATORS
from scicon.rules.tagging import analyse
from tests.rules_fixtures import TRIAL


def texts(operator: str, sentence: str, with_context: bool = True) -> list[str]:
    context = abstract_context(TRIAL) if with_context else None
    return [p.text for p in rule_operator(operator).propose(analyse(sentence), context)]


CASES = [
    # --- negation_insert: do-support agrees in tense and person; copula and modal take "not"
    (
        "negation_insert",
        "Honey syrup reduces night-time cough in children.",
        ["Honey syrup does not reduce night-time cough in children."],
    ),  # third person
    (
        "negation_insert",
        "The new regimen improved glycaemic control.",
        ["The new regimen did not improve glycaemic control."],
    ),  # past tense
    (
        "negation_insert",
        "Patients in both groups recover quickly.",
        ["Patients in both groups do not recover quickly."],
    ),  # plural present
    (
        "negation_insert",
        "The vaccine is safe and effective in infants.",
        ["The vaccine is not safe and effective in infants."],
    ),
    (
        "negation_insert",
        "Velanoxet may reduce the risk of stroke.",
        ["Velanoxet may not reduce the risk of stroke."],
    ),
    (
        "negation_insert",
        "Rituximab significantly reduced relapse.",
        ["Rituximab did not significantly reduce relapse."],
    ),  # the adverb follows "did not"
    (
        "negation_insert",
        "These findings suggest that early mobilization reduces length of stay.",
        ["These findings suggest that early mobilization does not reduce length of stay."],
    ),  # the claim
    (
        "negation_insert",
        "Patients randomised to receive velanoxet had fewer strokes than those given warfarin.",
        ["Patients randomised to receive velanoxet did not have fewer strokes than those given warfarin."],
    ),
    (
        "negation_insert",
        "There was a significant reduction in HbA1c.",
        ["There was not a significant reduction in HbA1c.", "There was no significant reduction in HbA1c."],
    ),
    ("negation_insert", "No serious adverse events were reported.", []),  # negative already
    ("negation_insert", "The drug did not improve survival.", []),
    # --- negation_remove
    (
        "negation_remove",
        "Mortality was not reduced by early surgery.",
        ["Mortality was reduced by early surgery."],
    ),
    ("negation_remove", "The drug did not improve survival.", ["The drug improved survival."]),
    (
        "negation_remove",
        "There was no significant difference in relapse between the groups.",
        ["There was a significant difference in relapse between the groups."],
    ),
    (
        "negation_remove",
        "No serious adverse events were reported.",
        ["Serious adverse events were reported."],
    ),
    ("negation_remove", "Exercise failed to improve fatigue.", ["Exercise improved fatigue."]),
    ("negation_remove", "The vaccine is safe and effective in infants.", []),
    # the tokenizer splits "cannot"; "have" after "do not" is a base form
    (
        "negation_remove",
        "Samples from arterial lines cannot be relied upon.",
        ["Samples from arterial lines can be relied upon."],
    ),
    (
        "negation_remove",
        "Active adults do not have a heightened response.",
        ["Active adults have a heightened response."],
    ),
    (
        "negation_remove",
        "Cells were increased in users with no bleeding.",
        ["Cells were increased in users with bleeding."],
    ),
    # a verb chain has one predicate: "shown to have" is not negated twice
    (
        "negation_insert",
        "It was shown to have prognostic value.",
        ["It was not shown to have prognostic value."],
    ),
    ("negation_insert", "Active adults do not have a heightened response.", []),
    # --- significance_flip
    (
        "significance_flip",
        "Remission rates were significantly higher with rituximab.",
        ["Remission rates were not significantly higher with rituximab."],
    ),
    (
        "significance_flip",
        "Treatment did not significantly reduce pain scores.",
        ["Treatment significantly reduced pain scores."],
    ),
    (
        "significance_flip",
        "Significant improvements were seen in both arms.",
        ["No significant improvements were seen in both arms."],
    ),
    ("significance_flip", "Fetal sex was not a significant predictor of preterm birth.", []),
    ("significance_flip", "Scores improved, though not to a statistically significant degree.", []),
    ("significance_flip", "The centres had significantly higher costs.", []),  # "had" is a main verb here
    (
        "significance_flip",
        "There were significant differences between the arms.",
        ["There were no significant differences between the arms."],
    ),
    # --- wordnet_antonym: re-inflected, articles agree, blocked words stay
    (
        "wordnet_antonym",
        "Serum ferritin increased after treatment.",
        ["Serum ferritin decreased after treatment."],
    ),
    (
        "wordnet_antonym",
        "Mortality was lower with velanoxet.",
        ["Mortality was higher with velanoxet."],
    ),  # comparative
    (
        "wordnet_antonym",
        "Small increases in blood pressure were observed.",
        [
            "Large increases in blood pressure were observed.",
            "Small decreases in blood pressure were observed.",
        ],
    ),
    (
        "wordnet_antonym",
        "The regimen had an important effect on survival.",
        ["The regimen had an unimportant effect on survival."],
    ),
    (
        "wordnet_antonym",
        "Velanoxet was more effective than warfarin in older adults.",
        [
            "Velanoxet was more ineffective than warfarin in older adults.",
            "Velanoxet was more effective than warfarin in younger adults.",
        ],
    ),
    ("wordnet_antonym", "Participants were followed up at the clinic.", []),
    ("wordnet_antonym", "Velanoxet was given twice daily.", []),
    # --- polarity_lexicon
    (
        "polarity_lexicon",
        "Honey syrup reduces night-time cough in children.",
        ["Honey syrup increases night-time cough in children."],
    ),
    (
        "polarity_lexicon",
        "Adding dexamethasone lowered mortality.",
        ["Adding dexamethasone raised mortality."],
    ),
    ("polarity_lexicon", "Mortality was lower with velanoxet.", ["Mortality was higher with velanoxet."]),
    (
        "polarity_lexicon",
        "Aspirin is a safe option for frail adults.",
        ["Aspirin is an unsafe option for frail adults."],
    ),
    ("polarity_lexicon", "The regimen was well tolerated.", ["The regimen was poorly tolerated."]),
    ("polarity_lexicon", "Participants were followed up at the clinic.", []),
    # under negation a scalar swap is no contradiction ("did not yield higher" / "lower")
    ("polarity_lexicon", "Random forests did not yield higher accuracy.", []),
    # --- numeric_mismatch: p-value direction, swaps from the abstract, scaled numbers
    (
        "numeric_mismatch",
        "Bleeding was lower with velanoxet (p<0.01).",
        ["Bleeding was lower with velanoxet (p>0.01)."],
    ),
    (
        "numeric_mismatch",
        "Bleeding occurred in 12% of patients.",
        [
            "Bleeding occurred in 4% of patients.",
            "Bleeding occurred in 9% of patients.",
            "Bleeding occurred in 24% of patients.",
        ],
    ),
    (
        "numeric_mismatch",
        "The hazard ratio was 0.61 (95% CI 0.45 to 0.83).",
        ["The hazard ratio was 0.30 (95% CI 0.45 to 0.83)."],
    ),  # interval bounds stay
    ("numeric_mismatch", "Velanoxet is a phase 3 candidate for type 2 diabetes.", []),
    ("numeric_mismatch", "The trial ran from 2015 to 2019.", []),
    ("numeric_mismatch", "Two groups were compared.", ["Three groups were compared."]),
    ("numeric_mismatch", "Mortality was 0% in both groups.", []),  # nothing to scale or swap against
    ("numeric_mismatch", "Symptoms recurred 12 to 14 days later.", []),  # a range stays a range
    (
        "numeric_mismatch",
        "Mean age was 37 years (SD 8.3) at 1 year.",
        [
            "Mean age was 65 years (SD 8.3) at 1 year.",
            "Mean age was 12 years (SD 8.3) at 1 year.",
            "Mean age was 74 years (SD 8.3) at 1 year.",
        ],
    ),
    # --- quantifier_flip
    ("quantifier_flip", "All patients completed the study.", ["No patients completed the study."]),
    (
        "quantifier_flip",
        "Most patients preferred the oral formulation.",
        ["Few patients preferred the oral formulation."],
    ),
    (
        "quantifier_flip",
        "Headache was the most frequent adverse event.",
        ["Headache was the least frequent adverse event."],
    ),
    (
        "quantifier_flip",
        "More patients in the velanoxet group were readmitted.",
        ["Fewer patients in the velanoxet group were readmitted."],
    ),
    (
        "quantifier_flip",
        "Velanoxet was more effective than warfarin in older adults.",
        ["Velanoxet was less effective than warfarin in older adults."],
    ),
    ("quantifier_flip", "Only a minority of patients reported pain.", []),
    ("quantifier_flip", "In addition, not all children had prescriptions.", []),
    ("quantifier_flip", "By then all remaining 17 practices had adopted it.", []),  # a number follows
    # --- modality_flip
    (
        "modality_flip",
        "Velanoxet may reduce the risk of stroke.",
        ["Velanoxet cannot reduce the risk of stroke."],
    ),
    (
        "modality_flip",
        "Benefit is likely to be greatest in older adults.",
        ["Benefit is unlikely to be greatest in older adults."],
    ),
    ("modality_flip", "Patients were less likely to be readmitted.", []),
    # --- role_swap and entity_swap (arms from the abstract's objective and methods)
    (
        "role_swap",
        "Velanoxet was more effective than warfarin in older adults.",
        ["Warfarin was more effective than velanoxet in older adults."],
    ),
    ("role_swap", "Velanoxet and warfarin were similarly effective.", []),  # symmetric relation
    (
        "entity_swap",
        "Velanoxet was superior to placebo for pain.",
        ["Warfarin was superior to placebo for pain."],
    ),
    ("entity_swap", "Velanoxet was given twice daily.", []),  # nothing is ranked
    # --- synonym_control: label-preserving
    (
        "synonym_control",
        "Honey syrup reduces night-time cough in children.",
        [
            "Honey syrup decreases night-time cough in children.",
            "Honey syrup lowers night-time cough in children.",
        ],
    ),
    (
        "synonym_control",
        "Patients in both groups recover quickly.",
        ["Participants in both groups recover quickly.", "Patients in both groups recover rapidly."],
    ),
    ("synonym_control", "Velanoxet was given twice daily.", []),
]


@pytest.mark.parametrize(
    ("operator", "sentence", "expected"), CASES, ids=[f"{c[0]}:{c[1][:40]}" for c in CASES]
)
def test_operator_output(operator, sentence, expected):
    assert texts(operator, sentence) == expected


def test_swaps_need_the_abstract():
    assert (
        texts("role_swap", "Velanoxet was more effective than warfarin in older adults.", with_context=False)
        == []
    )
    assert texts("numeric_mismatch", "Bleeding occurred in 12% of patients.", with_context=False) == [
        "Bleeding occurred in 24% of patients."
    ]


def test_outputs_carry_operator_and_named_rule():
    proposals = rule_operator("polarity_lexicon").propose(
        analyse("Mortality was lower with velanoxet."), None
    )
    assert [(p.operator, p.rule) for p in proposals] == [("polarity_lexicon", "high_low")]


def test_only_the_controls_preserve_the_label():
    labels = {name: rule_operator(name).label for name in OPERATORS.names()}
    preserving = {name for name, label in labels.items() if label is TargetLabel.NON_CONTRADICTION}
    assert preserving == {"synonym_control"} == set(CONTROL_OPERATORS)


def test_the_abstract_context_finds_arms_numbers_and_abbreviations():
    context = abstract_context(TRIAL)
    assert context.arms == (("velanoxet", "warfarin"),)
    assert [n.value for n in context.numbers] == ["65", "12", "4", "9", "0.01", "12", "410"]
    cbt = TRIAL.model_copy(
        update={
            "sentences": TRIAL.sentences[:1]
            + (
                TRIAL.sentences[1].model_copy(
                    update={
                        "text": "Adults were randomised to cognitive behavioural therapy (CBT) or usual care."
                    }
                ),
            )
        }
    )
    context = abstract_context(cbt)
    assert ("CBT", "cognitive behavioural therapy") in context.synonyms
    assert "usual care" in context.arm_names() and "cbt" in context.arm_names()
