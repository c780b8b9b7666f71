"""Prompts are the paper's, and parsers cope with real model output."""

import pytest

from scicon import prompts
from scicon.prompts import clean_answer, match_sentence, parse_rewrite

ORIGINAL = "Velanoxet significantly reduced nocturnal hypoglycaemia in adults."


def test_prompt_templates_fill_every_field():
    filled = prompts.CLASSIFICATION.format(sentence1="A.", sentence2="B.")
    assert filled.startswith("You are a helpful assistant expert in Biomedical domain.")
    assert "sentence1:A.\nsentence2: B.\nAnswer:" in filled
    assert prompts.WORD_REPLACEMENT.format(
        target_label="contradictory", sentence1="A.", sentence2="B."
    ).startswith("Our goal is to get contradictory sentences.")
    assert {p.section for p in prompts.ALL_PROMPTS} == {f"E.3.{i}" for i in range(1, 7)}


@pytest.mark.parametrize(
    "output",
    [
        "Velanoxet significantly increased nocturnal hypoglycaemia in adults.",
        "Answer: Velanoxet significantly increased nocturnal hypoglycaemia in adults.",
        '"Velanoxet significantly increased nocturnal hypoglycaemia in adults."',
        "sentence2: 'Velanoxet significantly increased nocturnal hypoglycaemia in adults.'",
        "\n\n**Answer:** Velanoxet significantly increased nocturnal hypoglycaemia in adults.\n"
        "Explanation: I replaced 'reduced' with 'increased'.",
        "Velanoxet significantly increased nocturnal hypoglycaemia in adults. (Note: the verb was flipped.)",
    ],
)
def test_rewrites_are_extracted_from_untidy_answers(output):
    assert (
        parse_rewrite(output, ORIGINAL)
        == "Velanoxet significantly increased nocturnal hypoglycaemia in adults."
    )


@pytest.mark.parametrize(
    "output", ["", "   \n  ", "Answer:", ORIGINAL, f"Answer: {ORIGINAL.lower()}", f'"{ORIGINAL}"']
)
def test_empty_or_unchanged_rewrites_are_failed_mutations(output):
    assert parse_rewrite(output, ORIGINAL) is None


def test_clean_answer_takes_the_first_non_empty_line():
    assert clean_answer("\n\nFirst line.\nSecond line.") == "First line."


def test_match_sentence_finds_the_copied_sentence_despite_small_changes():
    sentences = [
        "Mean age was 71 years in both groups.",
        "Major bleeding occurred in 4% of velanoxet patients and 9% of warfarin patients (P = 0.02).",
    ]
    answer = "Answer: major bleeding occurred in 4% of the velanoxet patients and 9% of warfarin patients."
    assert match_sentence(answer, sentences) == 1
    assert match_sentence("Something else entirely about cough syrup.", sentences) is None
    assert match_sentence("", sentences) is None
