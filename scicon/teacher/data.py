"""What the teacher learns from: labelled sentence pairs made without any teacher.

The DAG's own data comes through the build stage's source readers (so "cross form" means
the same thing to the teacher and to SciCon): rule negatives of a pair's sentence2 paired
with its sentence1 (BioNLI's recipe: the evidence stays, the claim flips), optionally
self-pairs, the original entailing pairs and label-preserving controls. ``operators``
narrows the rule negatives to the operators named. Labelled NLI sets (any loader the
evaluate stage knows; paths under ``labelled_root``) are added with their cap and weight;
a benchmark file used here must not also be the split it is evaluated on.

The held-out part is grouped by abstract, and a labelled set's rows by the loader's group
(the premise, the abstract), so no abstract or premise is on both sides. Weights repeat
training rows only.
"""

from __future__ import annotations

import logging
import zlib
from collections import Counter
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from scicon.classifier import CONTRADICTION
from scicon.dataset.build import BuiltDataset, build_dataset
from scicon.dataset.params import BuildSource
from scicon.dataset.sources import Candidate, SourcePaths, SourceReport, read_sources
from scicon.errors import InputFormatError, InputNotFoundError
from scicon.evaluate.benchmarks import BenchmarkPair, Skipped, load_benchmarks
from scicon.labelled.params import LabelledSpec, labelled_base
from scicon.records.dataset import Example
from scicon.sampling import seeded_sample
from scicon.teacher.params import TeacherParams

log = logging.getLogger(__name__)

RULE_SOURCES = (BuildSource.RULES_SELF, BuildSource.RULES_CROSS)
LABELLED_PREFIX = "labelled:"


class LabelledSettings(Protocol):
    """What the labelled sets are read by: the teacher's and the entailment judge's sections."""

    labelled: dict[str, LabelledSpec]
    seed: int


@dataclass
class TeacherData:
    dataset: BuiltDataset  # train and dev splits (no test split: the teacher is scored on dev)
    reports: list[SourceReport]
    left_out: dict[str, int]  # rule negatives of operators not taught, by operator
    labelled: dict[str, int]  # rows per labelled file


def _rule_contradiction(candidate: Candidate) -> bool:
    return candidate.label == 1 and candidate.generator in {s.value for s in RULE_SOURCES}


def _capped(pairs: list, cap: int | None, seed: int, name: str) -> list:
    """A seeded sample of ``cap`` pairs; the set's name is part of the seed, so sets differ."""
    kept = seeded_sample(pairs, cap, [seed, zlib.crc32(name.encode())])
    if len(kept) < len(pairs):
        log.info("teacher: labelled %s: a seeded sample of %d of %d pairs (cap)", name, len(kept), len(pairs))
    return kept


def positive_label(pair: BenchmarkPair, positive: str, origin: str) -> int:
    """1 when ``pair`` is of class ``positive``: contradiction is every loader's binary label,
    any other class (entailment) needs the loader's three-way label."""
    if positive == CONTRADICTION:
        return pair.label
    if pair.nli_label is None:
        raise InputFormatError(
            origin,
            f"pair {pair.key} has no three-way NLI label, so {positive} cannot be told from the rest "
            "(this loader gives contradiction vs not only); use a set whose loader reads three-way labels",
        )
    return int(pair.nli_label == positive)


def labelled_candidates(
    params: LabelledSettings,
    labelled_root: str | None,
    positive: str = CONTRADICTION,
    section: str = "teacher",
) -> tuple[list[Candidate], dict[str, int]]:
    """Every labelled set's pairs as candidates, each its own group (by the loader's group key),
    label 1 for the class ``positive`` (``section`` names the params section in errors)."""
    candidates: list[Candidate] = []
    counts: dict[str, int] = {}
    for name, loaded in load_benchmarks(params.labelled, labelled_base(labelled_root)).items():
        if isinstance(loaded, Skipped):
            raise InputNotFoundError(
                f"{section}.labelled.{name}: {loaded.reason} (labelled_root: {labelled_root})"
            )
        origin = f"{section}.labelled.{name} ({loaded.kind}: {loaded.path})"
        pairs = _capped(loaded.pairs, params.labelled[name].cap, params.seed, name)
        for pair in pairs:
            candidates.append(
                Candidate(
                    example_id=f"{LABELLED_PREFIX}{name}:{pair.key}",
                    pmid=f"{LABELLED_PREFIX}{name}:{pair.group or pair.key}",
                    premise=pair.sentence1,
                    hypothesis=pair.sentence2,
                    label=positive_label(pair, positive, origin),
                    generator=f"{LABELLED_PREFIX}{name}",
                )
            )
        counts[name] = len(pairs)
    return candidates, counts


def weighted(train: list[Example], params: LabelledSettings, seed: int) -> list[Example]:
    """The training split with each labelled set's rows repeated by its weight: an integer part
    of whole copies and a seeded share for the fraction (held-out rows are never repeated)."""
    rng = np.random.default_rng(seed)
    out: list[Example] = []
    for example in train:
        name = example.generator.removeprefix(LABELLED_PREFIX)
        weight = params.labelled[name].weight if example.generator.startswith(LABELLED_PREFIX) else 1.0
        copies = int(weight) + int(rng.random() < weight - int(weight))
        out += [
            example
            if copy == 0
            else example.model_copy(update={"example_id": f"{example.example_id}#{copy}"})
            for copy in range(copies)
        ]
    return out


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
    return TeacherData(dataset, reports, dict(sorted(left_out.items())), counts)
