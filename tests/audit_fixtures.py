"""Small SciCon builds and filled-in annotation files for the audit tests."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from pathlib import Path

from scicon.audit.params import AuditParams
from scicon.io import write_jsonl
from scicon.records.audit import AuditItem
from scicon.records.dataset import Example
from tests.params_defaults import section

# (generator, label, operator, mutation type, how the second sentence is made)
KINDS = (
    ("original", 0, "result_conclusion", None, lambda s: f"Patients given drug {s} fared better overall."),
    ("rules", 1, "negation_insert", "negation_polarity", lambda s: f"Drug {s} did not reduce mortality."),
    ("rules", 1, "polarity_lexicon", "causation", lambda s: f"Drug {s} increased mortality."),
    ("rules", 0, "synonym_control", None, lambda s: f"Drug {s} lowered mortality."),
    ("evonli", 1, "evonli", "scalar", lambda s: f"Drug {s} had a smaller effect on mortality."),
)


def example(pmid: str, index: int, kind: int, split: str = "train") -> Example:
    generator, label, operator, mutation, second = KINDS[kind]
    return Example(
        example_id=f"{pmid}-rc-{index}-{kind}-{generator}",
        pmid=pmid,
        sentence1=f"In trial {pmid}, drug {pmid}-{index} reduced mortality (12% vs 20%).",
        sentence2=second(f"{pmid}-{index}"),
        label=label,
        generator=generator,
        operator=operator,
        mutation_type=mutation,
        split=split,
    )


def build_rows(abstracts: int = 40, per_abstract: int = 5, first: int = 1000) -> list[Example]:
    """A build with every kind of row; kinds cycle so each abstract holds several."""
    rows = []
    for number in range(first, first + abstracts):
        split = ("train", "train", "train", "dev", "test")[number % 5]
        for index in range(per_abstract):
            rows.append(example(str(number), index, (number + index) % len(KINDS), split))
    return rows


def write_build(folder: Path, rows: Iterable[Example]) -> Path:
    rows = list(rows)
    for split in ("train", "dev", "test"):
        write_jsonl(folder / f"{split}.jsonl", [row for row in rows if row.split == split])
    return folder


def audit_params(**overrides) -> AuditParams:
    return section("audit", AuditParams, **({"bootstrap_resamples": 300} | overrides))


def fill_csv(blinded: Path, filled: Path, answer: Callable[[dict], str]) -> None:
    """Copy a blinded CSV with ``answer(row)`` in its answer column, the way a spreadsheet saves it."""
    with open(blinded, encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    with open(filled, "w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\r\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(row | {"answer": answer(row)})


def truth(items: Iterable[AuditItem]) -> dict[str, int]:
    return {item.item_id: item.example.label for item in items}
