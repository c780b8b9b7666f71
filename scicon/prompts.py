"""The prompts of the EvoNLI paper (appendix E.3), verbatim, and parsers for what models answer.

The prompt text is the same for every backend; a backend only wraps it in its
model's chat template. Parsers accept the untidy output of real instruction-tuned
models: preamble lines, labels, quotes, code fences, lists of alternatives, echoes of
sentence1, trailing notes and explanations. An output that holds no sentence (a
refusal, a bare yes/no, meta-text only) or an unchanged rewrite is ``None`` — a failed
mutation for the caller to count, not an error.
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

# ---- reading what models answer ------------------------------------------------------------
#
# Instruction-tuned models wrap the sentence they were asked for in chat: a preamble line
# ("Here is the rewritten sentence2:"), a label ("**Modified sentence2:**"), quotes, a code
# fence, a numbered list of alternatives, an echo of sentence1, a trailing "(Replaced 'X'
# with 'Y')" or an explanation paragraph, or no sentence at all (a refusal, a bare "No").
# The parser reads the output line by line: labels are removed (remembering whether they
# name sentence1), lines ending in ":" are preambles, lines that talk about the task rather
# than biomedicine are meta-text, and the first remaining line is the answer, cut after
# its last sentence that is not meta-text. A real sentence is never cut inside: "Of note,"
# and "After this change in protocol," start sentences, they are not trailers.

# A label in front of an answer, alone on its line or followed by the sentence.
_LABEL = re.compile(
    r"^(?:(?:the|my|a|an)\s+)?"
    r"(?:(?:modified|rewritten|revised|corrected|new|updated|final|contradictory|non-contradictory|"
    r"mutated|changed|edited|resulting|generated|proposed|supporting|output)\s+)*"
    r"(?P<noun>sentence\s*(?P<number>\d)?|answer|conclusion|result|output|response|hypothesis|version|"
    r"rewrite|option\s*\d*|alternative\s*\d*)"
    r"(?:\s+(?:is|would\s+be|reads|could\s+be))?\s*(?::|\s[-–—]\s)\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^(?:```|~~~)")
# headings, quotes, bullets, and list numbers before a capitalised item ("2. Velanoxet ...")
_DECORATION = re.compile(r"^(?:#+\s*|>\s*|[-*•]\s+|\d{1,2}[.)]\s+(?=[\"'“A-Z]))")
_EMPHASIS = re.compile(r"\*\*|__")
# where a sentence may end: not after "vs.", "e.g.", "et al." and the like
_SENTENCE_BREAK = re.compile(
    r"(?i:(?<!\bvs\.)(?<!\bv\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bal\.)(?<!\bfig\.)(?<!\bno\.)(?<!\bca\.))"
    r"(?<=[.!?])\s+(?=[\"'“(\[]?[A-Z])"
)
# A parenthesised note closing the line: "(Replaced 'reduced' with 'increased')", "[Note: ...]".
_TRAILING_NOTE = re.compile(
    r"\s*[(\[](?:note|explanation|edit|replaced|substituted|swapped|changed\s+[\"'“‘]|"
    r"original\s+(?:sentence|text|word)|i\s+(?:replaced|changed|swapped))\b[^)\]]*[)\]]\W*$",
    re.IGNORECASE,
)
_INLINE_NOTE = re.compile(r"\s+(?:note|explanation|reasoning)\s*:.*$", re.IGNORECASE)
_QUOTE_PAIRS = {'"': '"', "“": "”", "'": "'", "‘": "’", "`": "`", "«": "»"}

# Text about the task rather than about biomedicine, each kind named (an answer sentence
# never names "sentence2", addresses the user or refuses).
META_TEXT_PATTERNS: dict[str, re.Pattern] = {
    name: re.compile(pattern, re.IGNORECASE)
    for name, pattern in {
        "names a prompt field": r"\bsentence\s*[1-9]\b|\bsentence[1-9]",
        "presents an answer": r"^(?:here(?:'s|’s|\s+is|\s+are)\b|below\s+is\b|sure\b|of\s+course\b|"
        r"okay\b|ok\b|certainly!)",
        "talks about the answer": r"^(?:the|this|my|your|an?)\s+(?:correct\s+|final\s+)?answer\b",
        "talks about a sentence": r"^(?:the|this|that|a|an|my|each)\s+(?:\w+\s+)?(?:sentences?|rewrite)\b|"
        r"\b(?:corrected|rewritten|modified|revised|contradictory|final)\s+version\b|"
        r"\boriginal\s+sentences?\b",
        # "I" as a pronoun, not the numeral of "group I had" or "type I was"
        "speaks in the first person": r"^(?:i'm|i’m|i've|i'll|i'd)\b|(?:^|[,;:]\s*|\b(?:and|but|so|then)\s+)"
        r"i\s+(?:am|cannot|can't|could|will|would|have|had|replaced|changed|chose|use|used|think|"
        r"apologi[sz]e|hope)\b|\bas\s+an\s+ai\b",
        "addresses the user": r"^you\b|\bthe\s+user(?:'s|\s+(?:asked|provided|requested|wants|gave))\b|"
        r"\byour\s+(?:question|request|sentence|input)\b",
        "refuses": r"^sorry\b|\bi'?m\s+sorry\b|\bunable\s+to\s+(?:assist|fulfil|fulfill)\b",
        "answers yes or no": r"^(?:yes|no)\W*$",
        "explains": r"^(?:note|explanation|reasoning|rationale|changes?|justification|modifications?|edits?)"
        r"\s*[:\-]",
        "describes a replacement": r"^[(\[]?(?:i\s+)?(?:replaced|changed|substituted|swapped)\s+"
        r"(?:the\s+words?\s+)?[\"'“‘]",
    }.items()
}


def instruction_texts() -> list[str]:
    """The instruction lines and sentences of the paper's prompts, with and without their
    fields: the text a model echoes instead of answering."""
    units = set()
    for prompt in ALL_PROMPTS:
        # the prompts break sentences across lines; a model echoes either
        units.update(prompt.text.splitlines())
        units.update(re.split(r"(?<=[.!?:])\s+", " ".join(prompt.text.split())))
    # a bare field line ("sentence1: {sentence1}", "Answer:") is read as a label, not as an echo
    return sorted(unit.strip() for unit in units if len(re.sub(r"\{\w+\}", "", unit).split()) >= 3)


def _instruction_patterns() -> list[re.Pattern]:
    """Instruction texts as patterns, their fields as wildcards."""
    patterns = []
    for unit in instruction_texts():
        parts = [_comparable(part) for part in re.split(r"\{\w+\}", unit)]
        patterns.append(re.compile("^" + r"\s*.+?\s*".join(re.escape(part) for part in parts) + "$"))
    return patterns


def _comparable(text: str) -> str:
    return re.sub(r"[^a-z0-9%.]+", " ", text.lower()).strip(" .")


_INSTRUCTIONS = _instruction_patterns()


def meta_text_kind(text: str) -> str | None:
    """Why ``text`` is about the task rather than an answer (a META_TEXT_PATTERNS name), or None."""
    stripped = text.strip().strip(_QUOTES_AND_SPACE)
    for name, pattern in META_TEXT_PATTERNS.items():
        if pattern.search(stripped):
            return name
    comparable = _comparable(stripped)
    if any(pattern.match(comparable) for pattern in _INSTRUCTIONS):
        return "echoes the instruction"
    return None


_QUOTES_AND_SPACE = "\"'“”‘’`«» \t"


def _unquote(text: str) -> str:
    text = text.strip()
    while len(text) >= 2:
        closing = _QUOTE_PAIRS.get(text[0])
        body = text[1:].rstrip(" .")
        if closing is None or not body.endswith(closing):
            break
        inner = body[: -len(closing)].strip()
        if closing in inner and closing not in "'’":
            break  # two quoted parts ("a" or "b"), not one quoted sentence
        text = inner
    return text


def _answer_part(line: str) -> str:
    """``line`` without quotes and trailing notes, cut before its first meta-text sentence."""
    line = _INLINE_NOTE.sub("", _unquote(line))
    line = _TRAILING_NOTE.sub("", line).strip()
    starts = [0] + [match.end() for match in _SENTENCE_BREAK.finditer(line)]
    for start, end in zip(starts, starts[1:] + [len(line)], strict=True):
        if meta_text_kind(line[start:end]):
            return _unquote(line[:start])
    return _unquote(line)


def clean_answer(output: str) -> str:
    """The sentence a model answered, without chat around it; '' when the output holds none."""
    expecting_sentence1 = False
    for raw_line in output.splitlines():
        line = raw_line.strip()
        if _FENCE.match(line):
            continue
        line = _EMPHASIS.sub("", line)
        line = _DECORATION.sub("", line).strip()
        while True:
            if (label := _LABEL.match(line)) is not None:
                expecting_sentence1 = label["number"] == "1"
                line = label["rest"].strip()
                continue
            head, colon, tail = line.partition(":")
            if colon and tail.strip() and meta_text_kind(head):
                line = tail.strip()  # "Here is the rewritten sentence2: <answer>"
                continue
            break
        if not line:
            continue
        if expecting_sentence1:
            # an echo of sentence1 (on the label's line or the next), never the rewrite
            expecting_sentence1 = False
            continue
        if line.rstrip().endswith(":"):
            continue  # a preamble: the answer follows
        answer = _answer_part(line)
        if answer:
            return answer
    return ""


def parse_rewrite(output: str, original: str) -> str | None:
    """The mutated sentence from a word-replacement answer.

    None when the output holds no sentence (a refusal, "yes"/"no", meta-text only) or only
    the start of the original sentence2 (an answer cut short). Whether a sentence that was
    read is a real edit — not the original again, not sentence1 — is for the search's edit
    constraints to decide and count (:mod:`scicon.constraints.edits`).
    """
    sentence = clean_answer(output)
    if not sentence:
        return None
    answer, unchanged = _comparable(sentence), _comparable(original)
    if answer != unchanged and unchanged.startswith(answer):
        return None  # the original cut short by the token limit
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
