"""The prompts of the EvoNLI paper (appendix E.3), verbatim, and parsers for what models answer.

The prompt text is the same for every backend; a backend only wraps it in its
model's chat template. Parsers accept the untidy output of real models: a leading
"Answer:", quotes, a trailing explanation, several lines. An empty or unchanged
rewrite is ``None`` — a failed mutation for the caller to count, not an error.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from scicon.records.base import TargetLabel


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    section: str
    text: str

    def format(self, **fields: str) -> str:
        return self.text.format(**fields)


CONCLUSION_GENERATION = PromptTemplate(
    "conclusion_generation",
    "E.3.1",
    "Write a concise, single-sentence conclusion for the following sentences, summarizing the "
    "overall findings or implications of the research without providing an explanation or "
    "elaboration.\n\nSentences: {abstract_without_conclusion}\n\nAnswer:",
)

RESULT_EXTRACTION = PromptTemplate(
    "result_extraction",
    "E.3.2",
    "From the given conclusion, extract a single supporting sentence from the abstract, which is "
    "not the provided conclusion, without providing any explanation or additional information:"
    "\n\nAbstract: {abstract}\n\nConclusion: {conclusion}\n\nAnswer:",
)

WORD_REPLACEMENT = PromptTemplate(
    "word_replacement",
    "E.3.3",
    "Our goal is to get {target_label} sentences.\n\nChoose words from sentence2 and replace them "
    "in the sentence.\n\nWrite only sentence2 as an answer.\n\nProvide no additional explanation "
    "or commentary.\n\nsentence1: {sentence1}\n\nsentence2: {sentence2}\nAnswer:",
)

CLASSIFICATION = PromptTemplate(
    "classification",
    "E.3.4",
    "You are a helpful assistant expert in Biomedical domain.\nWe want to detect contradictions "
    "between sentences.\nDetermine if the following two sentences are contradictory.\nAnswer with "
    "only yes or no.\nProvide no additional explanation\nor commentary.\nsentence1:{sentence1}\n"
    "sentence2: {sentence2}\nAnswer:",
)

SIMILARITY = PromptTemplate(
    "similarity",
    "E.3.5",
    "You are a helpful assistant expert in Biomedical domain.\nWe want to check if sentences "
    "discuss the same topic even if\nthey are contradicting. Analyze the following two\nsentences "
    "and determine if they discuss the same exact topic.\nIf yes, answer 'yes.'\nIf no, answer "
    "'no.'\nProvide no other explanation.\nsentence1: {sentence1}\nsentence2: {sentence2}\nAnswer:",
)

CLAIM_DETECTION = PromptTemplate(
    "claim_detection",
    "E.3.6",
    "You are a system that evaluates sentences. When given a sentence,\nyou must determine if it "
    "contains a claim or provides any new\ninformation. If it does, reply with 'yes' and nothing "
    "else.\nIf it does not, reply with 'no' and nothing else.\nDo not provide explanations.\n"
    "Determine whether the following sentence contains a claim, finding,\nhypothesis. Respond with "
    "'Yes' if it does, otherwise respond with 'No'.\nDo not provide any explanation, only 'Yes' or "
    "'No'.\nHere is the sentence:\nsentence: {sentence}\nAnswer:",
)

ALL_PROMPTS = (
    CONCLUSION_GENERATION,
    RESULT_EXTRACTION,
    WORD_REPLACEMENT,
    CLASSIFICATION,
    SIMILARITY,
    CLAIM_DETECTION,
)

# How each target label reads inside the word-replacement prompt.
TARGET_LABEL_WORDS = {
    TargetLabel.CONTRADICTION: "contradictory",
    TargetLabel.NON_CONTRADICTION: "non-contradictory",
}

_ANSWER_PREFIX = re.compile(
    r"^\s*(?:\*\*)?(?:answer|sentence ?2|rewritten sentence|new sentence|conclusion|"
    r"supporting sentence|result)\s*(?:\*\*)?\s*[:\-]\s*(?:\*\*)?\s*",
    re.IGNORECASE,
)
_QUOTES = "\"'“”‘’`*"
_EXPLANATION = re.compile(r"\s+(?:\(|\[)?(?:explanation|note|this (?:sentence|change))\b.*$", re.IGNORECASE)


def clean_answer(output: str) -> str:
    """The first meaningful line of a model answer, without labels, quotes or trailing notes."""
    for line in output.strip().splitlines():
        line = line.strip()
        while True:
            stripped = _ANSWER_PREFIX.sub("", line).strip().strip(_QUOTES).strip()
            if stripped == line:
                break
            line = stripped
        line = _EXPLANATION.sub("", line).strip().strip(_QUOTES).strip()
        if line:
            return line
    return ""


def _comparable(text: str) -> str:
    return re.sub(r"[^a-z0-9%.]+", " ", text.lower()).strip(" .")


def parse_rewrite(output: str, original: str) -> str | None:
    """The mutated sentence from a word-replacement answer; None if empty or unchanged."""
    sentence = clean_answer(output)
    if not sentence or _comparable(sentence) == _comparable(original):
        return None
    return sentence


def parse_generated_sentence(output: str) -> str | None:
    """A generated sentence (e.g. a conclusion); None when the model produced nothing usable."""
    sentence = clean_answer(output)
    return sentence or None


def match_sentence(output: str, sentences: Sequence[str], minimum_ratio: float = 0.6) -> int | None:
    """Index of the sentence the model copied (fuzzy: models drop or alter a few words)."""
    answer = _comparable(clean_answer(output))
    if not answer:
        return None
    ratios = [difflib.SequenceMatcher(a=answer, b=_comparable(s), autojunk=False).ratio() for s in sentences]
    if not ratios:
        return None
    best = max(range(len(ratios)), key=lambda i: ratios[i])
    return best if ratios[best] >= minimum_ratio else None
