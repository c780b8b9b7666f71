"""Reading a round's answers back: validated reads, control accuracy, agreement, majority labels.

Answers are ``annotations/<annotator>.tsv`` files (``item_id<TAB>label<TAB>garbled``, blank
lines and ``#`` comments allowed) or Label Studio exports (``annotations/<annotator>.json``,
JSON or JSON-MIN) of the round's labeling config, read by :mod:`scicon.annotation.readback`;
the annotator is the file name up to its first dot. A malformed line, an unknown label, an
item not given to that annotator or one answered twice stops with the file and line named.
An item given but not answered is counted as missing, never guessed.

An annotator whose accuracy on the hidden gold controls (contradiction vs not, the judgement
the labels are for) is below ``min_control_accuracy`` has every answer set aside: the batch
must be redone; a batch given no controls is kept, unmeasured. The majority label is the
plurality of the accepted reads; a tie never makes a contradiction (neutral wins a tie it is
in, else entailment), so a label of contradiction always has more reads behind it than any
other label.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scicon.annotation.agreement import fleiss_kappa, gwet_ac1, unanimity
from scicon.annotation.blinding import ANNOTATIONS, KEY_FILE
from scicon.annotation.controls import contradiction_or_not, control_accuracy
from scicon.annotation.readback import ANSWER_SUFFIXES, answer_rows, checked_answers
from scicon.errors import InputFormatError, InputNotFoundError
from scicon.io import read_jsonl
from scicon.judgements.blinded import ASSIGNMENTS_FILE, CONTROLS_FILE, LABELS
from scicon.params import meets_threshold
from scicon.records.judgements import ControlItem, Judgement, RoundItem

TIE_ORDER = ("neutral", "entailment", "contradiction")  # who wins a tie: the label that claims least


@dataclass(frozen=True)
class Read:
    annotator: str
    item_id: str
    label: str
    garbled: int


@dataclass
class RoundAnswers:
    name: str
    items: dict[str, RoundItem]
    controls: dict[str, ControlItem]
    assignments: dict[str, list[str]]
    reads: list[Read] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)


def read_round(folder: Path) -> RoundAnswers:
    """The round's key, controls, assignments and every annotator's validated reads."""
    for name in (KEY_FILE, CONTROLS_FILE, ASSIGNMENTS_FILE):
        if not (folder / name).is_file():
            raise InputNotFoundError(f"{folder / name}: not found (is {folder} a round written by `sample`?)")
    answers = RoundAnswers(
        name=folder.name,
        items={item.item_id: item for item in read_jsonl(folder / KEY_FILE, RoundItem)},
        controls={control.item_id: control for control in read_jsonl(folder / CONTROLS_FILE, ControlItem)},
        assignments=json.loads((folder / ASSIGNMENTS_FILE).read_text(encoding="utf-8")),
    )
    for path in sorted((folder / ANNOTATIONS).glob("*")):
        if path.suffix not in ANSWER_SUFFIXES or path.name.startswith("."):
            continue
        annotator = path.name.split(".", 1)[0]
        if annotator not in answers.assignments:
            raise InputFormatError(
                str(path),
                f"no batch named {annotator} in {folder / ASSIGNMENTS_FILE} "
                f"(annotators: {', '.join(answers.assignments)})",
            )
        if annotator in answers.files:
            raise InputFormatError(str(path), f"{annotator} already answered in {answers.files[annotator]}")
        answers.files[annotator] = str(path)
        given = set(answers.assignments[annotator])
        for item_id, label, garbled in checked_answers(path, answer_rows(path), annotator, given, LABELS):
            answers.reads.append(Read(annotator, item_id, label, garbled))
    return answers


def majority_label(labels: list[str]) -> str:
    counts = Counter(labels)
    top = max(counts.values())
    return next(label for label in TIE_ORDER if counts.get(label) == top)


def annotator_figures(answers: RoundAnswers, min_accuracy: float, level: float) -> dict[str, dict]:
    """Per annotator: items given, answered, missing, and accuracy on the hidden gold controls."""
    figures = {}
    for annotator, given in answers.assignments.items():
        reads = [read for read in answers.reads if read.annotator == annotator]
        controls = [
            (read, answers.controls[read.item_id]) for read in reads if read.item_id in answers.controls
        ]
        labels = [(read.label, control.gold) for read, control in controls]
        binary = contradiction_or_not(labels)
        figure = {
            "file": answers.files.get(annotator),
            "given": len(given),
            "answered": len(reads),
            "missing": len(given) - len(reads),
            "controls_three_way": control_accuracy(labels, level),
            "controls_contradiction": control_accuracy(binary, level),
        }
        hidden = sum(item_id in answers.controls for item_id in given)
        passed = figure["controls_contradiction"]
        # a batch without controls cannot be measured, so it is kept; one with controls must pass
        # them (the unrounded share against the threshold)
        figure["accepted"] = bool(reads) and (
            hidden == 0 or (passed["of"] > 0 and meets_threshold(passed["hits"] / passed["of"], min_accuracy))
        )
        figures[annotator] = figure
    return figures


def agreement(reads_by_item: dict[str, list[Read]], readers: int) -> dict:
    """Fleiss' κ and Gwet's AC1 over the items read ``readers`` times, three-way and binary."""
    full = [reads for reads in reads_by_item.values() if len(reads) == readers]
    if not full:
        return {"items": 0}
    table = np.array([[sum(read.label == label for read in reads) for label in LABELS] for reads in full])
    binary = np.stack([table[:, 0], table[:, 1:].sum(axis=1)], axis=1)
    garbled = np.array(
        [
            [sum(read.garbled for read in reads), readers - sum(read.garbled for read in reads)]
            for reads in full
        ]
    )
    return {
        "items": len(full),
        "readers": readers,
        "fleiss_kappa_three_way": fleiss_kappa(table),
        "fleiss_kappa_contradiction": fleiss_kappa(binary),
        "gwet_ac1_three_way": gwet_ac1(table),
        "gwet_ac1_contradiction": gwet_ac1(binary),
        "unanimity_three_way": unanimity(table),
        "fleiss_kappa_garbled": fleiss_kappa(garbled),
    }


def judgements_of(answers: RoundAnswers, accepted: set[str]) -> tuple[list[Judgement], dict[str, list[Read]]]:
    """The majority-labelled items of the round, from the reads of accepted annotators only."""
    reads_by_item: dict[str, list[Read]] = defaultdict(list)
    for read in answers.reads:
        if read.annotator in accepted and read.item_id in answers.items:
            reads_by_item[read.item_id].append(read)
    judgements = []
    for item_id, reads in sorted(reads_by_item.items()):
        item = answers.items[item_id]
        label = majority_label([read.label for read in reads])
        votes = Counter(read.label for read in reads)
        judgements.append(
            Judgement(
                id=item.item_id,
                pmid=item.pmid,
                pair_id=item.pair_id,
                kind=item.kind,
                source=item.source,
                generator=item.generator,
                operator=item.operator,
                mutation_type=item.mutation_type,
                sentence1=item.sentence1,
                sentence2=item.sentence2,
                gold=label,
                contradiction=int(label == "contradiction"),
                votes=dict(sorted(votes.items())),
                unanimous=len(votes) == 1,
                garbled=int(2 * sum(read.garbled for read in reads) > len(reads)),
                round=answers.name,
                annotators=len(reads),
                sampling_weight=item.sampling_weight,
                teacher_probability=item.teacher_probability,
                original=item.original,
            )
        )
    return judgements, reads_by_item


def shares_by(judgements: list[Judgement], facet: str) -> dict[str, dict]:
    """Per value of ``facet``: items, share contradicting sentence1 (raw and re-weighted), share garbled."""
    groups: dict[str, list[Judgement]] = defaultdict(list)
    for judgement in judgements:
        groups[str(getattr(judgement, facet))].append(judgement)
    out = {}
    for value, rows in sorted(groups.items()):
        weights = np.array([row.sampling_weight for row in rows])
        flags = np.array([row.contradiction for row in rows])
        out[value] = {
            "items": len(rows),
            "contradiction": float(flags.mean()),
            "contradiction_weighted": float((weights * flags).sum() / weights.sum()),
            "entailment": sum(row.gold == "entailment" for row in rows) / len(rows),
            "neutral": sum(row.gold == "neutral" for row in rows) / len(rows),
            "garbled": sum(row.garbled for row in rows) / len(rows),
        }
    return out
