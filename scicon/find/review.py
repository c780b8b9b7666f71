"""The review loop: flagged pairs out to blind readers, their answers back as precision at k.

``export`` writes a review folder: the best-ranked pairs and a seeded random sample of the
comparable pairs the finder did not flag (what it misses), shuffled together with hidden
gold controls into one plain-text batch per annotator (item ids that say nothing of where an
item came from), and a private ``key.jsonl``. The readers follow the gold instructions with
one added label, ``not comparable`` (the header of every batch says when to use it). With
``stances``, a seeded sample of the claims the finder gave a stance per question joins the
batches as a second kind of item: the question and the claim, answered ``yes``, ``no`` or
``neither``; read back, two claims of one question the reader answered yes and no (or both the
same) give the sides the finder's split should have put them on.
``read`` checks the answers (``annotations/<annotator>.tsv``: ``item_id<TAB>label<TAB>garbled``;
a bad line stops with file and line named), and gives precision at k over the ranked pairs,
the share of contradictions among the pairs not flagged, what was not comparable, and each
annotator's accuracy on the controls, every share with its Wilson interval at the level passed
in (the CLI passes ``gold.confidence_level``); ``reviewed.jsonl`` carries the labels to the page.
Blinded ids, the controls per batch and their accuracy, and the answer files are
:mod:`scicon.annotation`'s.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from pydantic import Field

from scicon.annotation.blinding import (
    ANNOTATIONS,
    BLINDED,
    KEY_FILE,
    MANIFEST_FILE,
    annotator_names,
    blinded_id,
)
from scicon.annotation.controls import CONTRADICTION, contradiction_or_not, control_accuracy, control_counts
from scicon.annotation.intervals import share_with_interval
from scicon.annotation.readback import checked_answers, tsv_answers
from scicon.errors import InputFormatError, InputNotFoundError, NoWorkError
from scicon.io import atomic_open, read_json_objects, read_jsonl, write_json, write_jsonl
from scicon.records.base import Record
from scicon.records.find import FoundPair, StanceGroupRecord

LABELS = (CONTRADICTION, "entailment", "neutral", "not comparable")
STANCE_LABELS = ("yes", "no", "neither")
REVIEWED_FILE = "reviewed.jsonl"
STANCES_FILE = "stances.jsonl"
NAMESPACE = "scicon-find"

ADDENDUM = """# Read ../shared/data/gold/INSTRUCTIONS.md (or the INSTRUCTIONS.md you were given) first.
# This batch adds one label to those instructions. Many items put side by side two findings of
# two DIFFERENT studies. Judge them as findings about one question:
#   contradiction   both studies ask the same question (same intervention or exposure, comparison,
#                   population and outcome) and B's finding cannot hold if A's does
#   entailment / neutral   as the instructions say, taking A and B as answers to that question
#   not comparable  the two are about different questions: a different population, intervention,
#                   dose, comparison or outcome, so neither can contradict the other
# Items from one study are labelled exactly as the instructions say.
# One line per item: item_id<TAB>label<TAB>garbled; label is contradiction, entailment, neutral
# or not comparable; garbled is 1 or 0."""

STANCE_ADDENDUM = """# Some items are not pairs: they show a QUESTION (Q) and one CLAIM (C). For those, answer
# whether the claim, as written, answers the question yes, no or neither:
#   yes       the claim says the answer is yes (it asserts what the question asks about)
#   no        the claim says the answer is no (it denies it, or says there is no such effect)
#   neither   the claim does not answer the question (another aspect, a hedge, a question)
# One line per item as for the pairs: item_id<TAB>label<TAB>garbled, label yes, no or neither,
# garbled 1 when the claim itself is ungrammatical or odd."""


class ReviewItem(Record):
    item_id: str
    source: str = Field(description="top (best-ranked), below (not flagged, sampled), control or stance")
    annotator: str
    pair_id: str | None = None
    rank: int | None = None
    gold: str | None = None
    question: str | None = Field(default=None, description="a stance item's question cluster")
    claim_id: str | None = None
    stance: str | None = Field(default=None, description="the finder's stance of a stance item's claim")
    sentence_a: str
    sentence_b: str


def _item_id(seed: int, key: str) -> str:
    return blinded_id("f", NAMESPACE, seed, key)


def _read_gold(path: Path) -> list[dict]:
    rows = []
    for number, row in read_json_objects(path):
        if not {"id", "sentence1", "sentence2", "gold"} <= set(row):
            raise InputFormatError(str(path), "a gold row needs id, sentence1, sentence2 and gold", number)
        rows.append(row)
    return rows


def _gold_controls(rows: list[dict], count: int, rng: random.Random) -> list[dict]:
    contradictions = [row for row in rows if row["gold"] == CONTRADICTION]
    others = [row for row in rows if row["gold"] != CONTRADICTION]
    chosen, rest = control_counts(count, len(contradictions), len(others))
    return rng.sample(contradictions, chosen) + rng.sample(others, rest)


def export_review(
    pairs: Sequence[FoundPair],
    folder: Path,
    *,
    top: int,
    below: int,
    annotators: int,
    seed: int,
    gold: Path | None = None,
    controls_per_batch: int = 0,
    reserved: frozenset[str] = frozenset(),
    groups: Sequence[StanceGroupRecord] = (),
    stances: int = 0,
) -> dict:
    """Write the review folder (see the module docstring); returns its manifest. A pair with a
    claim of a ``reserved`` PMID (abstracts kept back from every annotator) is never sent: the
    ranks read are those of the other pairs, in order; nor is such a claim asked its stance."""
    if (folder / KEY_FILE).exists():
        raise InputFormatError(str(folder / KEY_FILE), "a review exists here already: export to a new folder")
    ranked = sorted(pairs, key=lambda pair: pair.rank)
    held_back = sum(1 for pair in ranked if {pair.a.pmid, pair.b.pmid} & reserved)
    ranked = [pair for pair in ranked if not {pair.a.pmid, pair.b.pmid} & reserved]
    rng = random.Random(seed)
    chosen_top = ranked[:top]
    under = [pair for pair in ranked[top:] if pair.comparable and not pair.flagged]
    chosen_below = rng.sample(under, min(below, len(under)))
    if not chosen_top and not chosen_below:
        raise NoWorkError("find review: no pair to review")
    names = annotator_names(annotators)
    items = _pair_items(chosen_top, chosen_below, names, seed, rng)
    stance_items = _stance_items(groups, stances, reserved, names, seed, rng) if stances else []
    items += stance_items
    if gold is not None and controls_per_batch:
        items += _control_items(_read_gold(gold), names, controls_per_batch, seed, rng)
    _write_batches(folder, items, names, seed)
    controls = sum(item.source == "control" for item in items)
    manifest = {"top": len(chosen_top), "below": len(chosen_below), "below_pool": len(under)}
    manifest |= {"stances": len(stance_items)} if stances else {}
    manifest |= {"reserved_left_out": held_back, "controls": controls, "annotators": annotators, "seed": seed}
    write_json(folder / MANIFEST_FILE, manifest)
    return manifest


def _pair_items(
    chosen_top: Sequence[FoundPair], chosen_below: Sequence[FoundPair], names: list[str], seed: int, rng
) -> list[ReviewItem]:
    """The pairs to read, each shown as A and B in a random order, dealt to the annotators in turn."""
    items = []
    chosen = [("top", p) for p in chosen_top] + [("below", p) for p in chosen_below]
    for position, (source, pair) in enumerate(chosen):
        a, b = (pair.a.text, pair.b.text) if rng.random() < 0.5 else (pair.b.text, pair.a.text)
        items.append(
            ReviewItem(
                item_id=_item_id(seed, pair.pair_id),
                source=source,
                annotator=names[position % len(names)],
                pair_id=pair.pair_id,
                rank=pair.rank,
                sentence_a=a,
                sentence_b=b,
            )
        )
    return items


def _stance_items(
    groups: Sequence[StanceGroupRecord],
    count: int,
    reserved: frozenset[str],
    names: list[str],
    seed: int,
    rng,
) -> list[ReviewItem]:
    """A seeded sample of the claims given a stance, whole questions first so that a question's
    claims are read together: the sides are compared within a question."""
    asked = [group for group in groups if group.asked]
    if not asked:
        raise NoWorkError(
            "find review: stance items need each question's text, and no stance group has one "
            "(run the finder on a claims file that gives each claim its question)"
        )
    items: list[ReviewItem] = []
    for group in rng.sample(asked, len(asked)):
        members = [m for m in group.members if m.claim.pmid not in reserved]
        for member in rng.sample(members, min(len(members), count - len(items))):
            items.append(
                ReviewItem(
                    item_id=_item_id(seed, f"stance:{group.question}:{member.claim.claim_id}"),
                    source="stance",
                    annotator=names[len(items) % len(names)],
                    question=group.question,
                    claim_id=member.claim.claim_id,
                    stance=member.stance,
                    sentence_a=group.asked,
                    sentence_b=member.claim.text,
                )
            )
        if len(items) >= count:
            break
    return items


def _control_items(
    gold_rows: list[dict], names: list[str], per_batch: int, seed: int, rng
) -> list[ReviewItem]:
    return [
        ReviewItem(
            item_id=_item_id(seed, f"{name}:{row['id']}"),
            source="control",
            annotator=name,
            gold=row["gold"],
            sentence_a=row["sentence1"],
            sentence_b=row["sentence2"],
        )
        for name in names
        for row in _gold_controls(gold_rows, per_batch, rng)
    ]


def _write_batches(folder: Path, items: list[ReviewItem], names: list[str], seed: int) -> None:
    """The private key, and one shuffled plain-text batch per annotator."""
    write_jsonl(folder / KEY_FILE, items)
    (folder / ANNOTATIONS).mkdir(parents=True, exist_ok=True)
    for name in names:
        shown = [item for item in items if item.annotator == name]
        random.Random(f"{seed}:{name}").shuffle(shown)
        header = [ADDENDUM] + ([STANCE_ADDENDUM] if any(i.source == "stance" for i in shown) else [])
        lines = [*header, f"# Batch {name}: {len(shown)} items.", ""]
        for number, item in enumerate(shown, start=1):
            first, second = ("Q", "C") if item.source == "stance" else ("A", "B")
            lines += [
                f"[{number}] {item.item_id}",
                f"{first}: {item.sentence_a}",
                f"{second}: {item.sentence_b}",
                "",
            ]
        with atomic_open(folder / BLINDED / f"{name}.txt") as handle:
            handle.write("\n".join(lines))


def _answers(folder: Path, items: dict[str, ReviewItem]) -> dict[str, tuple[str, int]]:
    """Every answer line of ``annotations/*.tsv`` as (label, garbled) by item, checked."""
    answers: dict[str, tuple[str, int]] = {}
    for path in sorted((folder / ANNOTATIONS).glob("*.tsv")):
        annotator = path.name.split(".", 1)[0]
        given = {item_id for item_id, item in items.items() if item.annotator == annotator}
        stance = {item_id for item_id in given if items[item_id].source == "stance"}
        rows = tsv_answers(path)
        checked = checked_answers(
            path, [r for r in rows if r[1] not in stance], annotator, given - stance, LABELS
        )
        checked += checked_answers(
            path, [r for r in rows if r[1] in stance], annotator, stance, STANCE_LABELS
        )
        for item_id, label, garbled in checked:
            answers[item_id] = (label, garbled)
    return answers


def read_review(folder: Path, level: float, ks: Sequence[int] = (10, 25, 50)) -> dict:
    """Check the answers of a review folder, write ``reviewed.jsonl`` and return the figures, their
    intervals at confidence ``level``."""
    if not (folder / KEY_FILE).is_file():
        raise InputNotFoundError(
            f"{folder / KEY_FILE}: not found (is {folder} a folder written by `review-export`?)"
        )
    items = {item.item_id: item for item in read_jsonl(folder / KEY_FILE, ReviewItem)}
    answers = _answers(folder, items)
    answered = [item for item in items.values() if item.item_id in answers]
    ranked = sorted((item for item in answered if item.source == "top"), key=lambda i: i.rank)
    below = [item for item in answered if item.source == "below"]

    def labels_of(chosen: Sequence[ReviewItem]) -> list[str]:
        return [answers[item.item_id][0] for item in chosen]

    def precision(chosen: Sequence[ReviewItem]) -> dict:
        labels = labels_of(chosen)
        return share_with_interval(sum(label == CONTRADICTION for label in labels), len(labels), level)

    reviewed = _write_reviewed(folder, answered, answers)
    return {
        "precision_at": {str(k): precision(ranked[:k]) for k in ks if k <= len(ranked)},
        "top": {"labels": dict(Counter(labels_of(ranked))), **precision(ranked)},
        "below_threshold": {"labels": dict(Counter(labels_of(below))), **precision(below)},
        "not_comparable": sum(1 for row in reviewed if row["label"] == "not comparable"),
        "garbled": sum(row["garbled"] for row in reviewed),
        "controls": _control_accuracy(answered, answers, level),
        "missing": len(items) - len(answered),
    } | (
        {"stance": stance_figures(_write_stances(folder, answered, answers), level)}
        if any(item.source == "stance" for item in items.values())
        else {}
    )


def _write_reviewed(
    folder: Path, answered: list[ReviewItem], answers: dict[str, tuple[str, int]]
) -> list[dict]:
    """``reviewed.jsonl``: the label of each pair read (controls and stances left out), for the page."""
    reviewed = [
        {
            "pair_id": item.pair_id,
            "rank": item.rank,
            "source": item.source,
            "label": answers[item.item_id][0],
            "garbled": answers[item.item_id][1],
            "readers": 1,
        }
        for item in sorted(answered, key=lambda i: (i.source, i.rank or 0))
        if item.source in ("top", "below")
    ]
    _write_rows(folder / REVIEWED_FILE, reviewed)
    return reviewed


def _write_stances(
    folder: Path, answered: list[ReviewItem], answers: dict[str, tuple[str, int]]
) -> list[dict]:
    """``stances.jsonl``: each stance item's claim, question, the finder's stance and the reader's."""
    rows = [
        {
            "claim_id": item.claim_id,
            "question": item.question,
            "finder": item.stance,
            "reader": answers[item.item_id][0],
            "garbled": answers[item.item_id][1],
        }
        for item in sorted(answered, key=lambda i: (i.question or "", i.claim_id or ""))
        if item.source == "stance"
    ]
    _write_rows(folder / STANCES_FILE, rows)
    return rows


def _write_rows(path: Path, rows: list[dict]) -> None:
    with atomic_open(path) as handle:
        for row in rows:
            handle.write(json.dumps(row, sort_keys=True) + "\n")


def stance_figures(rows: Sequence[dict], level: float) -> dict:
    """How the finder's sides agree with the readers': over the pairs of claims of one question
    that both sides place (yes or no), the share the finder puts on the same side exactly when
    the readers answered alike (``sides_right``, of the pairs the finder places); the finder's
    stance against the reader's, counted."""
    by_question: dict[str, list[dict]] = {}
    for row in rows:
        by_question.setdefault(row["question"], []).append(row)
    placed = right = sided_by_readers = 0
    for members in by_question.values():
        for a, b in itertools.combinations(members, 2):
            if {a["reader"], b["reader"]} <= {"yes", "no"}:
                sided_by_readers += 1
                if {a["finder"], b["finder"]} <= {"yes", "no"}:
                    placed += 1
                    right += (a["finder"] == b["finder"]) == (a["reader"] == b["reader"])
    return {
        "claims": len(rows),
        "questions": len(by_question),
        "pairs_sided_by_readers": sided_by_readers,
        "sides_right": share_with_interval(right, placed, level),
        "finder_against_reader": dict(sorted(Counter(f"{r['finder']}/{r['reader']}" for r in rows).items())),
    }


def _control_accuracy(answered: list[ReviewItem], answers: dict[str, tuple[str, int]], level: float) -> dict:
    """Each annotator's hidden controls: contradiction or not, as the gold says."""
    controls: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for item in answered:
        if item.source == "control":
            controls[item.annotator].append((answers[item.item_id][0], item.gold))
    return {
        name: control_accuracy(contradiction_or_not(labels), level)
        for name, labels in sorted(controls.items())
    }


def read_reviewed(path: Path) -> dict[str, dict]:
    """The labels of ``reviewed.jsonl`` by pair id, for the page."""
    return {row["pair_id"]: row for _, row in read_json_objects(path)}
