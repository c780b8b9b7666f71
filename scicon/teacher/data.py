"""What the teacher learns from: labelled sentence pairs made without any teacher.

The DAG's own data comes through the build stage's source readers (so "cross form" means
the same thing to the teacher and to SciCon): rule negatives of a pair's sentence2 paired
with its sentence1 (BioNLI's recipe: the evidence stays, the claim flips), optionally
self-pairs, the original entailing pairs and label-preserving controls. ``operators``
narrows the rule negatives to the operators named. Labelled NLI sets (any loader the
evaluate stage knows; paths under ``labelled_root``) are added with their cap and weight;
a benchmark file used here must not also be the split it is evaluated on. ``refine`` sets
are the second phase's data, split by abstract on their own.

The held-out part is grouped by abstract, and a labelled set's rows by the loader's group
(the premise, the abstract), so no abstract or premise is on both sides. Weights repeat
training rows only.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass

from scicon.classifier import CONTRADICTION
from scicon.dataset.build import BuiltDataset, build_dataset
from scicon.dataset.params import BuildSource
from scicon.dataset.sources import SourcePaths, SourceReport, read_sources
from scicon.labelled.candidates import EditInput, labelled_candidates, weighted
from scicon.readers.sets import LabelledSpec
from scicon.records.dataset import Candidate
from scicon.teacher.params import TeacherParams, TeacherRefine

log = logging.getLogger(__name__)

RULE_SOURCES = (BuildSource.RULES_SELF, BuildSource.RULES_CROSS)


@dataclass
class TeacherData:
    dataset: BuiltDataset  # train and dev splits (no test split: the teacher is scored on dev)
    reports: list[SourceReport]
    left_out: dict[str, int]  # rule negatives of operators not taught, by operator
    labelled: dict[str, int]  # rows per labelled file
    refine: BuiltDataset | None = None  # the second phase's train and dev splits
    refine_labelled: dict[str, int] | None = None


def _rule_contradiction(candidate: Candidate) -> bool:
    return candidate.label == 1 and candidate.generator in {s.value for s in RULE_SOURCES}


def teacher_data(paths: SourcePaths, params: TeacherParams, labelled_root: str | None) -> TeacherData:
    reports = read_sources(params.sources, paths) if params.sources else []
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
    labelled, counts = labelled_candidates(params, labelled_root)
    dataset = build_dataset(
        [*candidates, *labelled], dev_fraction=params.dev_fraction, test_fraction=0.0, seed=params.seed
    )
    dataset.splits["train"] = weighted(dataset.splits["train"], params, params.seed)
    data = TeacherData(dataset, reports, dict(sorted(left_out.items())), counts)
    if params.refine is not None:
        refine = refine_dataset(params.refine, params.seed, labelled_root, "teacher")
        data.refine, data.refine_labelled = refine
    return data


@dataclass(frozen=True)
class RefineSets:
    """The second phase's labelled sets as the labelled readers take them."""

    labelled: dict[str, LabelledSpec]
    seed: int


def refine_dataset(
    refine: TeacherRefine,
    seed: int,
    labelled_root: str | None,
    section: str,
    positive: str | None = CONTRADICTION,
    edits: EditInput | None = None,
    **build_options,
) -> tuple[BuiltDataset, dict[str, int]]:
    """The second phase's train and dev splits (split by abstract) and rows per set: label 1 for
    class ``positive``, or the three-way class index when it is None; edited pairs as ``edits``
    says; ``build_options`` go to :func:`build_dataset` (sentence order, row type)."""
    sets = RefineSets(refine.labelled, seed)
    judged, counts = labelled_candidates(
        sets, labelled_root, positive, section=f"{section}.refine", edits=edits
    )
    dataset = build_dataset(
        judged, dev_fraction=refine.dev_fraction, test_fraction=0.0, seed=seed, **build_options
    )
    dataset.splits["train"] = weighted(dataset.splits["train"], sets, seed)
    return dataset, counts
