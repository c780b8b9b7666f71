"""Prompts are the paper's, and parsers cope with real model output."""

import pytest

from scicon import prompts
from scicon.prompts import (
    clean_answer,
    match_sentence,
    meta_text_kind,
    parse_generated_sentence,
    parse_rewrite,
)

ORIGINAL = "Velanoxet significantly reduced nocturnal hypoglycaemia in adults."
REWRITE = "Velanoxet significantly increased nocturnal hypoglycaemia in adults."
SENTENCE1 = "Nocturnal hypoglycaemia occurred in 4% of the velanoxet group and 11% of the placebo group."


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


@pytest.mark.parametrize("output", ["", "   \n  ", "Answer:"])
def test_empty_answers_are_failed_mutations(output):
    assert parse_rewrite(output, ORIGINAL) is None


@pytest.mark.parametrize("output", [ORIGINAL, f"Answer: {ORIGINAL.lower()}", f'"{ORIGINAL}"', SENTENCE1])
def test_copies_are_read_and_left_to_the_edit_constraints(output):
    from scicon.constraints.edits import Changed, NotSentence1
    from scicon.records.corpus import Role
    from scicon.records.pairs import Pair, PairKind
    from scicon.search.base import rejected_edits

    pair = Pair(
        pair_id="P-rc-0-1", pmid="P", kind=PairKind.RESULT_CONCLUSION, sentence1=SENTENCE1,
        sentence2=ORIGINAL, role1=Role.RESULTS, role2=Role.CONCLUSIONS, index1=0, index2=1,
    )  # fmt: skip
    read = parse_rewrite(output, ORIGINAL)
    assert read is not None
    (rejected,) = rejected_edits([Changed(), NotSentence1()], pair, ORIGINAL, [read])
    assert rejected in ("changed", "not_sentence1")


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


# Outputs of instruction-tuned models to the word-replacement prompt (E.3.3), in the shapes
# SmolLM2-135M-Instruct and larger chat models produce; each row: what it shows, output, rewrite.
REWRITE_TABLE = [
    ("preamble line, blank line, sentence", f"Here is the rewritten sentence2:\n\n{REWRITE}", REWRITE),
    ("preamble naming sentence2 in one line", f"Here is the rewritten sentence2: {REWRITE}", REWRITE),
    (
        "chatty preamble",
        f"Sure! Here's the modified sentence2 with no additional commentary:\n\n{REWRITE}",
        REWRITE,
    ),
    ("'would be' preamble", f"The corrected sentence would be:\n\n{REWRITE}", REWRITE),
    ("label kept on the line", f"Modified sentence2: {REWRITE}", REWRITE),
    ("markdown bold label", f"**Modified sentence2:** {REWRITE}", REWRITE),
    ("markdown bold label on its own line", f"**Rewritten sentence 2:**\n{REWRITE}", REWRITE),
    ("label with 'is'", f"Sentence2 is: {REWRITE}", REWRITE),
    ("echo of the input label", f"sentence2: {REWRITE}", REWRITE),
    ("nested labels", f"Answer: Sentence 2: {REWRITE}", REWRITE),
    ("double-quoted sentence", f'"{REWRITE}"', REWRITE),
    ("typographic quotes after a label", f"Rewritten sentence: “{REWRITE}”", REWRITE),
    ("blockquote", f"> {REWRITE}", REWRITE),
    ("code fence", f"```\n{REWRITE}\n```", REWRITE),
    ("code fence with a language", f"```text\n{REWRITE}\n```", REWRITE),
    ("replacement note in parentheses", f"{REWRITE} (Replaced 'reduced' with 'increased')", REWRITE),
    (
        "replacement note after the label line",
        f"sentence2: {REWRITE}\n(Replaced 'reduced' with 'increased')",
        REWRITE,
    ),
    ("note in brackets", f"{REWRITE} [Note: only the verb was changed.]", REWRITE),
    ("inline explanation", f"{REWRITE} Explanation: the verb now points the other way.", REWRITE),
    ("Note: trailer line", f"{REWRITE}\nNote: I replaced 'reduced' with 'increased'.", REWRITE),
    (
        "explanation paragraph after a blank line",
        f"{REWRITE}\n\nThis rewrite reverses the effect of velanoxet, so the two sentences now contradict.",
        REWRITE,
    ),
    ("explanation sentence on the same line", f"{REWRITE} This sentence now contradicts sentence1.", REWRITE),
    (
        "numbered alternatives: the first",
        f"1. {REWRITE}\n2. Velanoxet did not reduce nocturnal hypoglycaemia in adults.",
        REWRITE,
    ),
    (
        "bulleted alternatives: the first",
        f"- {REWRITE}\n- Velanoxet had no effect on hypoglycaemia.",
        REWRITE,
    ),
    ("echo of both sentences: sentence2's", f"Sentence1: {SENTENCE1}\nSentence2: {REWRITE}", REWRITE),
    ("sentence1 label alone, its text below", f"Sentence 1:\n{SENTENCE1}\n\nSentence 2:\n{REWRITE}", REWRITE),
    (
        "meta line, then the labelled answer",
        f'You chose sentence2 and replaced the word "reduced".\n\nSentence2 is: {REWRITE}',
        REWRITE,
    ),
    (
        "a real sentence starting 'Of note,'",
        "Of note, velanoxet increased nocturnal hypoglycaemia in adults.",
        "Of note, velanoxet increased nocturnal hypoglycaemia in adults.",
    ),
    (
        "a real sentence starting 'After this change in protocol,'",
        "After this change in protocol, velanoxet increased nocturnal hypoglycaemia in adults.",
        "After this change in protocol, velanoxet increased nocturnal hypoglycaemia in adults.",
    ),
    (
        "statistics with 'vs.' and 'No' stay whole",
        "Velanoxet increased hypoglycaemia (12% vs. 4%, Yes vs. No; P = 0.02).",
        "Velanoxet increased hypoglycaemia (12% vs. 4%, Yes vs. No; P = 0.02).",
    ),
    (
        "a colon inside the sentence",
        "Velanoxet increased two outcomes: hypoglycaemia and weight gain.",
        "Velanoxet increased two outcomes: hypoglycaemia and weight gain.",
    ),
    (
        "a parenthesis that is data, not a note",
        f"{REWRITE[:-1]} (modified intention-to-treat).",
        f"{REWRITE[:-1]} (modified intention-to-treat).",
    ),
    # no rewrite at all
    ("bare no", "No", None),
    ("bare yes with punctuation", "Yes.", None),
    ("refusal", "I cannot rewrite this sentence because it would spread medical misinformation.", None),
    ("apology", "I'm sorry, but I can't help with that request.", None),
    ("assistant chatter", "I'm ready to assist. What's your next question?", None),
    ("meta-text only", "Here is a corrected version of sentence2 with no additional commentary:", None),
    ("answer preamble only", "The answer to your question is:", None),
    ("talk about the sentences", "The sentence is a contradiction to the statement in sentence1.", None),
    (
        "echo of the instruction",
        "Our goal is to get contradictory sentences.\n\nWrite only sentence2 as an answer.",
        None,
    ),
    ("labels with nothing under them", "Sentence 1:\nAim:\nSentence 2:\nAim:", None),
    ("only sentence1 echoed", f"Sentence1: {SENTENCE1}", None),
    # copies are read as they are; the edit constraints reject them by name
    ("answer that repeats sentence1", SENTENCE1, SENTENCE1),
    ("unchanged sentence2 under a label", f"Sentence2: {ORIGINAL}", ORIGINAL),
    ("sentence2 cut short by the token limit", f"Sentence2: {ORIGINAL[:40]}", None),
    ("empty", "", None),
]


@pytest.mark.parametrize(
    ("output", "expected"), [row[1:] for row in REWRITE_TABLE], ids=[row[0] for row in REWRITE_TABLE]
)
def test_rewrites_are_read_from_instruction_model_outputs(output, expected):
    assert parse_rewrite(output, ORIGINAL) == expected


def test_generated_sentences_share_the_reading():
    assert parse_generated_sentence(f"**Conclusion:**\n\n{REWRITE}\n\nExplanation: a summary.") == REWRITE
    assert parse_generated_sentence("I cannot write a conclusion without the full abstract.") is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Here is the rewritten sentence2:", "names a prompt field"),
        ("Sure, here it is.", "presents an answer"),
        ("The answer is not provided.", "talks about the answer"),
        ("The sentence cannot be reworded without changing its meaning.", "talks about a sentence"),
        ("In the original sentence, the missing word is 'enabling'.", "talks about a sentence"),
        ("I replaced one word.", "speaks in the first person"),
        ("Please provide the sentence that the user asked for.", "addresses the user"),
        ("Sorry, that is not possible.", "refuses"),
        ("no.", "answers yes or no"),
        ("Explanation: the verb was flipped.", "explains"),
        ("(Replaced 'reduced' with 'increased')", "describes a replacement"),
        ("Provide no additional explanation or commentary.", "echoes the instruction"),
        ("Determine if the following two sentences are contradictory.", "echoes the instruction"),
    ],
)
def test_meta_text_is_named_by_kind(text, kind):
    assert meta_text_kind(text) == kind


@pytest.mark.parametrize(
    "sentence",
    [
        "Of note, velanoxet reduced nocturnal hypoglycaemia in adults.",
        "After this change in protocol, admissions fell by a third.",
        "The response rate was 45% in the velanoxet group.",
        "The modified Rankin scale score improved at 90 days.",
        "The corrected QT interval did not change.",
        "Here, we show that velanoxet is safe in adults.",
        "Patients in group I had stable haemodynamics during dialysis.",
        "Type I diabetes was present in 12 patients.",
        "These data cannot provide evidence of long-term benefit.",
        "No significant difference was found between the groups.",
        "Great toe amputations were rare.",
    ],
)
def test_biomedical_sentences_are_not_meta_text(sentence):
    assert meta_text_kind(sentence) is None
    assert clean_answer(sentence) == sentence
