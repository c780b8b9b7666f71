"""The blinded annotation files: one per annotator, as CSV and as a Label Studio task file.

A blinded item is its id and two sentences — no label, generator, operator, PMID or
example id (the PMID would lead to the abstract, and so to which sentence was edited).
Each annotator gets the items in an own seeded order, and each item's two sentences in an
own seeded order, so neither position nor a neighbour carries information and order
effects do not line up across the panel. Both orders are hashes of (seed, annotator,
item id): stable when other items change.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scicon.annotation.blinding import CONFIG_FILE, INSTRUCTIONS_FILE, annotator_names, digest, hashed_order
from scicon.annotation.labelstudio import task
from scicon.audit.labelstudio import labeling_config
from scicon.audit.question import ACCEPTED, GUIDANCE, QUESTION
from scicon.io import atomic_open, staged_folder, write_json
from scicon.records.audit import AuditItem

CSV_COLUMNS = ("item_id", "sentence_a", "sentence_b", "answer", "comment")
NAMESPACE = "scicon-audit"


@dataclass(frozen=True)
class BlindedItem:
    item_id: str
    sentence_a: str
    sentence_b: str


def blinded_items(items: Sequence[AuditItem], seed: int, annotator: str) -> list[BlindedItem]:
    """``items`` as ``annotator`` sees them: own item order, own sentence order per item."""
    shown = []
    for item in hashed_order(items, lambda i: f"{i.item_id}:order", NAMESPACE, seed, annotator):
        first, second = item.example.sentence1, item.example.sentence2
        if int(digest(NAMESPACE, seed, annotator, item.item_id, "swap")[-1], 16) % 2:
            first, second = second, first
        shown.append(BlindedItem(item.item_id, first, second))
    return shown


def write_csv_file(path: Path, shown: Sequence[BlindedItem]) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for item in shown:
        writer.writerow((item.item_id, item.sentence_a, item.sentence_b, "", ""))
    # with a byte-order mark, spreadsheet programs read the file as UTF-8 (keeping ≥, µ, accents)
    with atomic_open(path, "wb") as handle:
        handle.write(buffer.getvalue().encode("utf-8-sig"))


def instructions(annotators: int) -> str:
    answers = "\n".join(f"- `{answer}`" for answer in ACCEPTED)
    return f"""# SciCon audit: instructions for annotators

You will judge pairs of sentences. For every pair, answer one question:

> **{QUESTION}**

{GUIDANCE}

Answers (write exactly one per pair):

{answers}

Leave the answer empty for a pair you have not judged yet; partly filled files are fine.
The optional comment is for anything you want the auditors to know.

## With the CSV file

Open `annotator-N.csv` (your number), fill the `answer` column (and `comment` if you like),
save it as CSV (UTF-8) under the same name, and send it back. Do not change `item_id`,
the sentences, or the column names.

## With Label Studio

Create a project, paste `{CONFIG_FILE}` under *Settings → Labeling Interface → Code*,
import `annotator-N.labelstudio.json`, label every task, then *Export → JSON* and send the
exported file back (renamed to `annotator-N.json`).

This folder holds files for {annotators} annotator(s); each file has the same pairs in its
own order. Please work alone and do not discuss pairs with other annotators.
"""


def write_blinded(items: Sequence[AuditItem], annotators: int, seed: int, folder: Path) -> list[str]:
    """Write the blinded files of ``annotators`` annotators into ``folder`` (replaced whole)."""
    names = annotator_names(annotators)
    with staged_folder(folder) as staging:
        for name in names:
            shown = blinded_items(items, seed, name)
            write_csv_file(staging / f"{name}.csv", shown)
            tasks = [task(item.item_id, item.sentence_a, item.sentence_b) for item in shown]
            write_json(staging / f"{name}.labelstudio.json", tasks)
        with atomic_open(staging / CONFIG_FILE) as handle:
            handle.write(labeling_config())
        with atomic_open(staging / INSTRUCTIONS_FILE) as handle:
            handle.write(instructions(annotators))
    return names
