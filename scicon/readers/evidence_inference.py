"""Claims that state a trial's direction of effect, from the doctors' answers of Evidence Inference 2.0.

The Evidence Inference corpus ("Inferring Which Medical Treatments Work from Reports of Clinical
Trials"; "Evidence Inference 2.0"; MIT licence) asks, for an intervention, a comparator and an
outcome of a randomized controlled trial, whether the intervention *significantly increased*,
*significantly decreased* or made *no significant difference* to the outcome; medical doctors
answered with the evidence text they cited, and a second doctor checked each answer
(``prompts_merged.csv``, ``v2_annotations.csv``).

Each valid answer (both checks passed) gives the evidence text as sentence1 and claims as
sentence2, written from the phrasings of ``tables/direction_claims.tsv`` (a family per answer,
drawn with the groups in either order, seeded by the answer):

========================  ===========================================================  ==================
kind                      the claim                                                    label
========================  ===========================================================  ==================
``stated``                what the doctors found                                       entailment
``direction_flipped``     the opposite direction, same wording (a difference answer)   contradiction
``difference``            a difference where there was none (a no-difference answer)   contradiction
``no_difference``         no difference where there was one                            contradiction
``groups_swapped``        the two groups swapped: a direction change, or for no         contradiction /
                          difference the same claim                                    entailment
``swapped_and_flipped``   groups swapped and direction flipped: the same claim again   entailment
========================  ===========================================================  ==================

Every claim but ``stated`` is an edit of the stated claim of the same family and order, recorded
as the pair's ``original``, so a judge that reads edits sees the few words that changed. Pairs
are grouped by article (the PMCID), so a held-out split never shares an article with training;
``articles`` keeps the training articles, the held-out ones or all, by the list ``held_out``
names (the project's ``data/held_out/evidence_inference_pmcids.txt``).

Left out and counted: answers a checker rejected, evidence that is not text (a table row: too
few words, or too few of them words), answers whose prompt the upstream README flags, prompts
whose valid answers disagree on the label, and intervention, comparator or outcome phrases too
long for a sentence.
"""

from __future__ import annotations

import functools
import html
import logging
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from scicon.errors import InputFormatError, InputNotFoundError
from scicon.io import read_id_list
from scicon.readers import LOADERS, LoaderOptions
from scicon.readers.labels import log_left_out
from scicon.readers.rows import line_error, read_csv, text
from scicon.records.benchmark import BenchmarkPair
from scicon.tsv import check_value, read_table

__data__ = ("tables/direction_claims.tsv", "tables/evidence_inference_flagged_prompts.tsv")

TABLES = Path(__file__).parent / "tables"
CLAIMS_TABLE = TABLES / "direction_claims.tsv"
FLAGGED_TABLE = TABLES / "evidence_inference_flagged_prompts.tsv"
PROMPTS_FILE = "prompts_merged.csv"
ANSWERS_FILE = "v2_annotations.csv"

INCREASE, DECREASE, NO_DIFFERENCE = "increase", "decrease", "no_difference"
DIRECTIONS = (INCREASE, DECREASE, NO_DIFFERENCE)
# the doctors' labels (a few rows spell "significantly increase")
ANSWER_DIRECTIONS = {
    "significantly increased": INCREASE,
    "significantly increase": INCREASE,
    "significantly decreased": DECREASE,
    "no significant difference": NO_DIFFERENCE,
}
CLAIM_KINDS = (
    "stated",
    "direction_flipped",
    "difference",
    "no_difference",
    "groups_swapped",
    "swapped_and_flipped",
)
_WORD = re.compile(r"[A-Za-z]{2,}")
_SPACES = re.compile(r"\s+")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)

log = logging.getLogger(__name__)


class DirectionOptions(LoaderOptions):
    articles: Literal["all", "training", "held_out"] = Field(
        description="all articles, or those the held_out list leaves for training, or only those it holds"
    )
    held_out: str | None = Field(
        description="file of PMCIDs kept out of every training set (one per line; relative to the "
        "working directory, the repository); needed unless articles is all"
    )
    kinds: tuple[str, ...] = Field(
        min_length=1, description=f"claim kinds to write, of {', '.join(CLAIM_KINDS)}"
    )
    left_out_flags: tuple[str, ...] = Field(
        description="prompt flags of the upstream README whose answers are left out "
        "(incorrect, questionable, somewhat_malformed)"
    )
    min_evidence_words: int = Field(ge=1, description="evidence with fewer words is not a sentence")
    max_evidence_words: int = Field(ge=1, description="longer evidence is a passage, not a sentence")
    min_word_share: float = Field(ge=0, le=1, description="share of the evidence's tokens that are words")
    max_phrase_words: int = Field(ge=1, description="longest intervention, comparator or outcome phrase used")
    seed: int


@dataclass(frozen=True)
class Phrasing:
    family: str
    templates: dict[str, str]  # direction -> template


@functools.cache
def phrasings(path: Path = CLAIMS_TABLE) -> tuple[Phrasing, ...]:
    """The claim families, each with a template per direction; a family missing one stops with the
    table's file and line."""
    by_family: dict[str, dict[str, str]] = defaultdict(dict)
    lines: dict[str, int] = {}
    for row in read_table(path, required=("family", "direction", "template")):
        direction = check_value(path, row, "direction", DIRECTIONS)
        family, template = row.fields["family"], row.fields["template"]
        if direction in by_family[family]:
            raise InputFormatError(str(path), f"family {family!r} has two {direction} templates", row.line)
        for slot in ("{x}", "{y}", "{o}"):
            if slot not in template:
                raise InputFormatError(str(path), f"template lacks {slot}", row.line)
        by_family[family][direction] = template
        lines.setdefault(family, row.line)
    for family, templates in by_family.items():
        if len(templates) != len(DIRECTIONS):
            raise InputFormatError(str(path), f"family {family!r} lacks a direction", lines[family])
    return tuple(Phrasing(family, templates) for family, templates in by_family.items())


@functools.cache
def flagged_prompts(path: Path = FLAGGED_TABLE) -> dict[str, frozenset[str]]:
    return {
        row.fields["flag"]: frozenset(row.fields["prompt_ids"].split())
        for row in read_table(path, required=("flag", "prompt_ids"))
    }


def flipped(direction: str) -> str:
    return {INCREASE: DECREASE, DECREASE: INCREASE}.get(direction, direction)


def phrase(value: str, *, start: bool) -> str:
    """A prompt's phrase inside a sentence: one space between words, no trailing stop; its first
    letter lower-cased mid-sentence unless the first word is an acronym, upper-cased at the start."""
    cleaned = _SPACES.sub(" ", html.unescape(value)).strip().rstrip(".;,")
    first = cleaned.split(" ", 1)[0]
    if start:
        return cleaned[:1].upper() + cleaned[1:]
    if first[:1].isupper() and first[1:].islower():
        return cleaned[:1].lower() + cleaned[1:]
    return cleaned


def claim(template: str, x: str, y: str, outcome: str) -> str:
    """``template`` filled in, each phrase cased for where it stands; the outcome without a leading
    article, which the templates place themselves ("higher the redness" is not English)."""
    outcome = _ARTICLE.sub("", outcome.strip())
    out = template
    for slot, value in (("{x}", x), ("{y}", y), ("{o}", outcome)):
        out = out.replace(slot, phrase(value, start=out.startswith(slot)))
    return out


@dataclass(frozen=True)
class Claim:
    kind: str
    text: str
    nli_label: str
    original: str | None


def claims_for(
    direction: str, intervention: str, comparator: str, outcome: str, rng: random.Random
) -> list[Claim]:
    """Every claim kind for an answer of ``direction`` (see the module's table), in one family and
    order drawn from ``rng``."""
    family = rng.choice(phrasings())
    swap = rng.random() < 0.5
    x, y = (comparator, intervention) if swap else (intervention, comparator)
    # the direction of x against y
    stated_direction = flipped(direction) if swap else direction

    def say(d: str, first: str, second: str) -> str:
        return claim(family.templates[d], first, second, outcome)

    stated = say(stated_direction, x, y)
    claims = [Claim("stated", stated, "entailment", None)]
    if direction == NO_DIFFERENCE:
        claims.append(
            Claim("difference", say(rng.choice((INCREASE, DECREASE)), x, y), "contradiction", stated)
        )
        claims.append(Claim("groups_swapped", say(NO_DIFFERENCE, y, x), "entailment", stated))
    else:
        claims.append(
            Claim("direction_flipped", say(flipped(stated_direction), x, y), "contradiction", stated)
        )
        claims.append(Claim("no_difference", say(NO_DIFFERENCE, x, y), "contradiction", stated))
        claims.append(Claim("groups_swapped", say(stated_direction, y, x), "contradiction", stated))
        claims.append(
            Claim("swapped_and_flipped", say(flipped(stated_direction), y, x), "entailment", stated)
        )
    return claims


def evidence_sentence(value: str, options: DirectionOptions) -> str | None:
    """The cited evidence as one line of text, or None when it is not a sentence (a table row)."""
    cleaned = _SPACES.sub(" ", html.unescape(value)).strip()
    tokens = cleaned.split(" ")
    words = sum(bool(_WORD.search(token)) for token in tokens)
    if not options.min_evidence_words <= len(tokens) <= options.max_evidence_words:
        return None
    if words < options.min_word_share * len(tokens):
        return None
    return cleaned


def _folder_file(folder: Path, name: str) -> Path:
    for candidate in (folder / name, folder / "annotations" / name):
        if candidate.is_file():
            return candidate
    raise InputNotFoundError(f"{folder}: no {name} (nor annotations/{name})")


@dataclass(frozen=True)
class _Prompt:
    pmcid: str
    intervention: str
    comparator: str
    outcome: str


def _prompts(path: Path) -> dict[str, _Prompt]:
    prompts = {}
    for line, row in read_csv(path):
        prompt_id = text(row.get("PromptID"), path, line, "PromptID")
        pmcid = text(row.get("PMCID"), path, line, "PMCID")
        prompts[prompt_id] = _Prompt(
            "PMC" + pmcid.removeprefix("PMC"),
            text(row.get("Intervention"), path, line, "Intervention"),
            text(row.get("Comparator"), path, line, "Comparator"),
            text(row.get("Outcome"), path, line, "Outcome"),
        )
    return prompts


@dataclass(frozen=True)
class _Answer:
    prompt_id: str
    user: str
    direction: str
    evidence: str
    line: int


def _valid_answers(
    path: Path, prompts: dict[str, _Prompt], options: DirectionOptions, left_out: Counter
) -> list[_Answer]:
    flagged = set().union(*(flagged_prompts()[flag] for flag in options.left_out_flags))
    answers = []
    for line, row in read_csv(path):
        prompt_id = text(row.get("PromptID"), path, line, "PromptID")
        if prompt_id not in prompts:
            raise line_error(path, line, f"PromptID {prompt_id} is not in {PROMPTS_FILE}")
        label = str(row.get("Label", "")).strip()
        if label not in ANSWER_DIRECTIONS:
            raise line_error(path, line, f"Label {label!r} is not one of {', '.join(ANSWER_DIRECTIONS)}")
        checks = (str(row.get("Valid Label")).strip(), str(row.get("Valid Reasoning")).strip())
        if any(value not in ("True", "False") for value in checks):
            raise line_error(path, line, f"Valid Label / Valid Reasoning must be True or False, got {checks}")
        if checks != ("True", "True"):
            left_out["answer rejected by the checking doctor"] += 1
            continue
        if prompt_id in flagged:
            left_out["prompt flagged upstream"] += 1
            continue
        evidence = evidence_sentence(str(row.get("Annotations", "")), options)
        if evidence is None:
            left_out["evidence not a sentence"] += 1
            continue
        answers.append(
            _Answer(prompt_id, str(row.get("UserID", "")).strip(), ANSWER_DIRECTIONS[label], evidence, line)
        )
    return answers


@LOADERS.register(
    "evidence_inference_direction",
    keys="prompt id, doctor, answer and claim kind",
    groups="article (PMCID)",
    settings=DirectionOptions,
    reads_folders=True,
    description="Evidence Inference 2.0 folder (prompts_merged.csv, v2_annotations.csv): the doctors' "
    "evidence -> claims of the effect's direction, entailment / contradiction",
)
def load_direction_claims(folder: Path, options: DirectionOptions) -> list[BenchmarkPair]:
    if not folder.is_dir():
        raise InputFormatError(str(folder), "the evidence_inference_direction loader reads the data folder")
    unknown = sorted(set(options.kinds) - set(CLAIM_KINDS))
    if unknown:
        raise InputFormatError(
            str(folder), f"unknown claim kinds {unknown} (known: {', '.join(CLAIM_KINDS)})"
        )
    unknown = sorted(set(options.left_out_flags) - set(flagged_prompts()))
    if unknown:
        raise InputFormatError(
            str(FLAGGED_TABLE), f"no flag {unknown[0]!r} (flags: {', '.join(flagged_prompts())})"
        )
    held_out = read_id_list(options.held_out) if options.held_out else None
    if options.articles != "all" and held_out is None:
        raise InputFormatError(str(folder), f"articles {options.articles!r} needs the held_out list")
    prompts = _prompts(_folder_file(folder, PROMPTS_FILE))
    left_out: Counter[str] = Counter()
    answers = _valid_answers(_folder_file(folder, ANSWERS_FILE), prompts, options, left_out)
    directions = defaultdict(set)
    for answer in answers:
        directions[answer.prompt_id].add(answer.direction)
    pairs: list[BenchmarkPair] = []
    seen: set[tuple[str, str]] = set()
    answer_number: Counter[tuple[str, str]] = Counter()
    for answer in answers:
        prompt = prompts[answer.prompt_id]
        if held_out is not None and (prompt.pmcid in held_out) != (options.articles == "held_out"):
            left_out[f"article not in the {options.articles} articles"] += 1
            continue
        if len(directions[answer.prompt_id]) > 1:
            left_out["doctors disagree on the prompt's label"] += 1
            continue
        if (
            max(len(p.split()) for p in (prompt.intervention, prompt.comparator, prompt.outcome))
            > options.max_phrase_words
        ):
            left_out["a phrase longer than max_phrase_words"] += 1
            continue
        if (answer.prompt_id, answer.evidence) in seen:
            left_out["the same evidence for the same prompt again"] += 1
            continue
        seen.add((answer.prompt_id, answer.evidence))
        number = answer_number[(answer.prompt_id, answer.user)]
        answer_number[(answer.prompt_id, answer.user)] += 1
        rng = random.Random(f"{options.seed}:{answer.prompt_id}:{answer.user}:{number}")
        for made in claims_for(answer.direction, prompt.intervention, prompt.comparator, prompt.outcome, rng):
            if made.kind not in options.kinds:
                continue
            pairs.append(
                BenchmarkPair(
                    sentence1=answer.evidence,
                    sentence2=made.text,
                    label=int(made.nli_label == "contradiction"),
                    key=f"{answer.prompt_id}:{answer.user}:{number}:{made.kind}",
                    group=prompt.pmcid,
                    nli_label=made.nli_label,
                    facets=(("claim_kind", made.kind), ("answer", answer.direction)),
                    original=made.original,
                )
            )
    log_left_out(folder, left_out)
    return pairs
