"""Labelled NLI sets as candidate pairs: what the teacher, the entailment judge and the build read.

Each set is read by its benchmark loader (paths under ``labelled_root``), capped to a seeded
sample, and every pair becomes a candidate grouped by the loader's group key (the premise,
the document), so a held-out split never shares a premise with training. Weights repeat
training rows only, after the split.
"""

from __future__ import annotations

import logging
import zlib
from typing import Protocol

import numpy as np
from pydantic import Field

from scicon.classifier import CONTRADICTION
from scicon.errors import InputFormatError, InputNotFoundError
from scicon.params import Section
from scicon.readers.rows import NLI_LABELS
from scicon.readers.sets import LabelledSpec, Skipped, labelled_base, load_sets, resolved
from scicon.records.benchmark import BenchmarkPair
from scicon.records.dataset import Candidate, Example
from scicon.sampling import seeded_sample
from scicon.textdiff import marked_edit

log = logging.getLogger(__name__)

LABELLED_PREFIX = "labelled:"
# the example id suffix of an edited pair's unmarked copy
PLAIN_COPY = "#plain"


class EditInput(Section):
    """How a judge learns edited pairs (those whose set records the sentence sentence2 was made from)."""

    marked: bool = Field(
        description="show each edit marked in sentence2 (scicon.textdiff.marked_edit), and record in the "
        "judge's folder that it reads edits, so every scorer marks them the same way"
    )
    plain_copies: bool = Field(
        description="each marked pair also unmarked, so the judge still reads pairs that come without "
        "their original (benchmarks, the pairs filter)"
    )


class LabelledSettings(Protocol):
    """What the labelled sets are read by: the teacher's, the entailment judge's and the build's sections."""

    labelled: dict[str, LabelledSpec]
    seed: int


def labelled_pmid(name: str, group: str) -> str:
    """A labelled row's stand-in PMID, ``labelled:<set>:<group>``: rows of one group share a split."""
    return f"{LABELLED_PREFIX}{name}:{group}"


def labelled_group(pmid: str) -> str:
    """The group a labelled row's stand-in PMID names (``labelled_pmid``'s inverse)."""
    return pmid.removeprefix(LABELLED_PREFIX).split(":", 1)[-1]


def capped(pairs: list, cap: int | None, seed: int, name: str) -> list:
    """A seeded sample of ``cap`` pairs; the set's name is part of the seed, so sets differ."""
    kept = seeded_sample(pairs, cap, [seed, zlib.crc32(name.encode())])
    if len(kept) < len(pairs):
        log.info("labelled %s: a seeded sample of %d of %d pairs (cap)", name, len(kept), len(pairs))
    return kept


def positive_label(pair: BenchmarkPair, positive: str | None, origin: str) -> int:
    """1 when ``pair`` is of class ``positive``: contradiction is every loader's binary label,
    any other class (entailment) needs the loader's three-way label; ``positive`` None gives the
    three-way class index of :data:`NLI_LABELS`."""
    if positive == CONTRADICTION:
        return pair.label
    if pair.nli_label is None:
        wanted = positive or "each of the three NLI classes"
        raise InputFormatError(
            origin,
            f"pair {pair.key} has no three-way NLI label, so {wanted} cannot be told from the rest "
            "(this loader gives contradiction vs not only); use a set whose loader reads three-way labels",
        )
    if positive is None:
        return NLI_LABELS.index(pair.nli_label)
    return int(pair.nli_label == positive)


def shown_hypotheses(pair: BenchmarkPair, edits: EditInput | None) -> list[tuple[str, str]]:
    """(example id suffix, sentence2) of each training row ``pair`` makes: itself, or for an edit
    when ``edits`` marks them, the marked form and, with plain copies, the plain one too."""
    if edits is None or not edits.marked or pair.original is None or pair.original == pair.sentence2:
        return [("", pair.sentence2)]
    marked = [("", marked_edit(pair.original, pair.sentence2))]
    return [*marked, (PLAIN_COPY, pair.sentence2)] if edits.plain_copies else marked


def labelled_candidates(
    params: LabelledSettings,
    labelled_root: str | None,
    positive: str | None = CONTRADICTION,
    section: str = "teacher",
    edits: EditInput | None = None,
) -> tuple[list[Candidate], dict[str, int]]:
    """Every labelled set's pairs as candidates, each its own group (by the loader's group key),
    label 1 for the class ``positive`` or, with ``positive`` None, the three-way class index
    (``section`` names the params section in errors); edited pairs as ``edits`` says."""
    candidates: list[Candidate] = []
    counts: dict[str, int] = {}
    for name, loaded in load_sets(
        resolved(params.labelled), labelled_base(labelled_root), section=f"{section}.labelled"
    ).items():
        if isinstance(loaded, Skipped):
            raise InputNotFoundError(
                f"{section}.labelled.{name}: {loaded.reason} (labelled_root: {labelled_root}); "
                "fill a labelled root with `python -m scicon.labelled download ... --root DIR`, or offline "
                "put local copies where `python -m scicon.labelled list` says each file goes, and "
                "-S labelled_root=DIR"
            )
        origin = f"{section}.labelled.{name} ({loaded.kind}: {loaded.path})"
        pairs = capped(loaded.pairs, params.labelled[name].cap, params.seed, name)
        for pair in pairs:
            label = positive_label(pair, positive, origin)
            for suffix, hypothesis in shown_hypotheses(pair, edits):
                candidates.append(
                    Candidate(
                        example_id=f"{LABELLED_PREFIX}{name}:{pair.key}{suffix}",
                        pmid=labelled_pmid(name, pair.group or pair.key),
                        premise=pair.sentence1,
                        hypothesis=hypothesis,
                        label=label,
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
