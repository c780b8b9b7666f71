"""What the teacher learns from: labelled sentence pairs made without any teacher.

The DAG's own data comes through the build stage's source readers (so "cross form" means
the same thing to the teacher and to SciCon): rule negatives of a pair's sentence2 paired
with its sentence1 (BioNLI's recipe: the evidence stays, the claim flips), optionally
self-pairs, the original entailing pairs and label-preserving controls. ``operators``
narrows the rule negatives to the operators named. Labelled NLI files a user names (any
loader the evaluate stage knows: JSONL/CSV columns, MedNLI, HealthVer, NLI4CT) are added
as they are; a benchmark file used here must not also be the split it is evaluated on.

The held-out part is grouped by abstract (a labelled file's rows are each their own
group), so no abstract's sentences are on both sides.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from scicon.dataset.build import BuiltDataset, build_dataset
from scicon.dataset.params import BuildSource
from scicon.dataset.sources import Candidate, SourcePaths, SourceReport, read_sources
from scicon.errors import InputNotFoundError
from scicon.evaluate.benchmarks import Skipped, load_benchmarks
from scicon.teacher.params import TeacherParams

log = logging.getLogger(__name__)

RULE_SOURCES = (BuildSource.RULES_SELF, BuildSource.RULES_CROSS)
LABELLED_PREFIX = "labelled:"


@dataclass
class TeacherData:
    dataset: BuiltDataset  # train and dev splits (no test split: the teacher is scored on dev)
    reports: list[SourceReport]
    left_out: dict[str, int]  # rule negatives of operators not taught, by operator
    labelled: dict[str, int]  # rows per labelled file


def _rule_contradiction(candidate: Candidate) -> bool:
    return candidate.label == 1 and candidate.generator in {s.value for s in RULE_SOURCES}


def labelled_candidates(params: TeacherParams, root: Path) -> tuple[list[Candidate], dict[str, int]]:
    candidates: list[Candidate] = []
    counts: dict[str, int] = {}
    for name, loaded in load_benchmarks(params.labelled, root).items():
        if isinstance(loaded, Skipped):
            raise InputNotFoundError(f"teacher.labelled.{name}: {loaded.reason}")
        for number, pair in enumerate(loaded.pairs):
            candidates.append(
                Candidate(
                    example_id=f"{LABELLED_PREFIX}{name}-{number}",
                    pmid=f"{LABELLED_PREFIX}{name}:{pair.origin}",
                    premise=pair.sentence1,
                    hypothesis=pair.sentence2,
                    label=pair.label,
                    generator=f"{LABELLED_PREFIX}{name}",
                )
            )
        counts[name] = len(loaded.pairs)
    return candidates, counts


def teacher_data(paths: SourcePaths, params: TeacherParams, root: Path = Path(".")) -> TeacherData:
    reports = read_sources(params.sources, paths)
    taught = set(params.operators) if params.operators is not None else None
    candidates: list[Candidate] = []
    left_out: Counter[str] = Counter()
    for candidate in (c for report in reports for c in report.candidates):
        if taught is not None and _rule_contradiction(candidate) and candidate.operator not in taught:
            left_out[candidate.operator or ""] += 1
            continue
        candidates.append(candidate)
    if left_out:
        log.info(
            "teacher: left out rule negatives of operators not taught: %s", dict(sorted(left_out.items()))
        )
    labelled, counts = labelled_candidates(params, root)
    dataset = build_dataset(
        [*candidates, *labelled], dev_fraction=params.dev_fraction, test_fraction=0.0, seed=params.seed
    )
    return TeacherData(dataset, reports, dict(sorted(left_out.items())), counts)
