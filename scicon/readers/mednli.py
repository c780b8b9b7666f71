"""MedNLI (Romanov & Shivade, 2018), and its clinical-specialty subsets.

JSON Lines with ``sentence1``, ``sentence2`` and ``gold_label`` in entailment /
neutral / contradiction, as in ``mli_test_v1.jsonl``. Option ``specialty`` keeps a
subset by keyword (:mod:`scicon.readers.specialties`), ``keywords`` a custom one.
Pairs are grouped by premise: MedNLI writes three hypotheses for each.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator

from scicon.io import read_json_objects
from scicon.readers import LOADERS, LoaderOptions
from scicon.readers.rows import line_error, line_key, text
from scicon.readers.specialties import SPECIALTY_KEYWORDS, keyword_pattern, specialty_pattern
from scicon.records.benchmark import BenchmarkPair

LABELS = {"contradiction": 1, "entailment": 0, "neutral": 0}


class MedNliOptions(LoaderOptions):
    specialty: str | None = Field(description=f"keep one subset: {', '.join(SPECIALTY_KEYWORDS)} (null: all)")
    keywords: tuple[str, ...] | None = Field(
        description="keep pairs matching these whole-word regular expressions instead (null: none)"
    )

    @field_validator("specialty")
    @classmethod
    def _known(cls, specialty: str | None) -> str | None:
        if specialty is not None and specialty not in SPECIALTY_KEYWORDS:
            raise ValueError(f"unknown specialty {specialty!r} (known: {', '.join(SPECIALTY_KEYWORDS)})")
        return specialty


@LOADERS.register(
    "mednli",
    keys="`<file name>:<line>`",
    groups="premise",
    settings=MedNliOptions,
    description="MedNLI JSON Lines: sentence1, sentence2, gold_label; entailment and neutral are 0",
)
def load_mednli(path: Path, options: MedNliOptions) -> list[BenchmarkPair]:
    pattern = None
    if options.keywords:
        pattern = keyword_pattern(options.keywords)
    elif options.specialty:
        pattern = specialty_pattern(options.specialty)
    pairs = []
    for line, row in read_json_objects(path):
        label = row.get("gold_label")
        if label not in LABELS:
            raise line_error(path, line, f"gold_label {label!r} is not one of {', '.join(LABELS)}")
        first = text(row.get("sentence1"), path, line, "sentence1")
        second = text(row.get("sentence2"), path, line, "sentence2")
        if pattern is not None and not (pattern.search(first) or pattern.search(second)):
            continue
        pairs.append(BenchmarkPair(first, second, LABELS[label], line_key(path, line), group=first))
    return pairs
