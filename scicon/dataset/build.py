"""Assemble SciCon from the candidate pairs: deduplicate, split by abstract, randomise order.

- **Deduplication** compares pairs as unordered sets of the same sentences
  (:func:`scicon.textdiff.normalised_sentence`: case and spacing folded). The first copy
  wins, in the order of ``build.sources``; a pair that appears with both labels is
  ambiguous and dropped entirely; a pair whose two sentences are the same is dropped.
- **Splits are grouped by PMID**: an abstract's pairs share one split, so no
  sentence of a test abstract is seen in training. The split of an abstract is a
  hash of (seed, PMID), so it does not move when other abstracts are added or
  removed — `dvc exp run -S sim=0.7` evaluates on the same test abstracts.
- **Sentence order** is randomised per pair, as the paper does to prevent
  positional bias (the generated sentence would otherwise always come second).
  Within each split and label exactly half the pairs (rounded down) are swapped,
  chosen by a seeded shuffle, so order carries no information about the label.
"""

from __future__ import annotations

import hashlib
import logging
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from scicon.dataset.params import BuildParams
from scicon.dataset.sources import SourceReport
from scicon.dataset.taxonomy import TYPE_NAMES
from scicon.records.dataset import Candidate, Example
from scicon.textdiff import normalised_sentence

log = logging.getLogger(__name__)

SPLITS = ("train", "dev", "test")


@dataclass
class BuiltDataset:
    splits: dict[str, list[Example]]
    hypotheses: dict[str, str]  # example_id -> the generated (second) sentence, before the order shuffle
    removed: dict[str, int]
    swapped: int

    @property
    def examples(self) -> list[Example]:
        return [example for split in SPLITS for example in self.splits[split]]


def deduplicate(candidates: Sequence[Candidate]) -> tuple[list[Candidate], dict[str, int]]:
    removed = Counter({"duplicates": 0, "conflicting_labels": 0, "identical_sentences": 0})
    first: dict[frozenset[str], Candidate] = {}
    labels: dict[frozenset[str], set[int]] = defaultdict(set)
    for candidate in candidates:
        a, b = normalised_sentence(candidate.premise), normalised_sentence(candidate.hypothesis)
        if a == b:
            removed["identical_sentences"] += 1
            continue
        key = frozenset((a, b))
        labels[key].add(candidate.label)
        if key in first:
            removed["duplicates"] += 1
        else:
            first[key] = candidate
    kept = []
    for key, candidate in first.items():
        if len(labels[key]) > 1:
            removed["conflicting_labels"] += 1
            log.info(
                "build: dropped %s: the same pair also appears with the other label", candidate.example_id
            )
        else:
            kept.append(candidate)
    return kept, dict(removed)


def split_of(pmid: str, seed: int, dev_fraction: float, test_fraction: float) -> str:
    """The split of an abstract: a uniform draw from a hash of (seed, PMID)."""
    digest = hashlib.sha256(f"{seed}:{pmid}".encode()).digest()
    draw = int.from_bytes(digest[:8], "big") / 2**64
    if draw < test_fraction:
        return "test"
    if draw < test_fraction + dev_fraction:
        return "dev"
    return "train"


def order_swaps(example_ids: Sequence[str], seed: int, group: str) -> set[str]:
    """The ids whose two sentences are swapped: exactly half of ``example_ids``, seeded."""
    ordered = sorted(example_ids)
    random.Random(f"{seed}:{group}").shuffle(ordered)
    return set(ordered[: len(ordered) // 2])


def build_dataset(
    candidates: Sequence[Candidate],
    *,
    dev_fraction: float,
    test_fraction: float,
    seed: int,
    swap_order: bool = True,
    example_type: type[Example] = Example,
    held_out: frozenset[str] = frozenset(),
) -> BuiltDataset:
    """Deduplicated candidates split by abstract. ``swap_order`` swaps the two sentences of half of
    each label's examples (contradiction is symmetric, and the swap hides which sentence is the
    generated one); a directional relation such as entailment keeps premise first. ``example_type``
    validates the rows (:class:`ThreeWayExample` for a three-way judge's class indices). The
    abstracts of ``held_out`` go to the test split, so nothing trains on them."""
    kept, removed = deduplicate(candidates)
    by_split: dict[str, list[Candidate]] = {split: [] for split in SPLITS}
    for candidate in kept:
        split = (
            "test"
            if candidate.pmid in held_out
            else split_of(candidate.pmid, seed, dev_fraction, test_fraction)
        )
        by_split[split].append(candidate)

    splits: dict[str, list[Example]] = {}
    swapped = 0
    for split, members in by_split.items():
        swaps: set[str] = set()
        for label in (0, 1) if swap_order else ():
            ids = [c.example_id for c in members if c.label == label]
            swaps |= order_swaps(ids, seed, f"{split}:{label}")
        swapped += len(swaps)
        members.sort(key=lambda c: c.example_id)
        splits[split] = [_example(c, split, c.example_id in swaps, example_type) for c in members]
        if not members and (split == "train" or {"dev": dev_fraction, "test": test_fraction}[split] > 0):
            log.warning("the %s split is empty (too few abstracts for its fraction)", split)
    hypotheses = {c.example_id: c.hypothesis for c in kept}
    return BuiltDataset(splits=splits, hypotheses=hypotheses, removed=removed, swapped=swapped)


def _example(candidate: Candidate, split: str, swap: bool, example_type: type[Example]) -> Example:
    first, second = (
        (candidate.hypothesis, candidate.premise) if swap else (candidate.premise, candidate.hypothesis)
    )
    return example_type(
        example_id=candidate.example_id,
        pmid=candidate.pmid,
        sentence1=first,
        sentence2=second,
        label=candidate.label,
        generator=candidate.generator,
        operator=candidate.operator,
        mutation_type=candidate.mutation_type,
        split=split,
    )


def _fraction(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def split_stats(examples: Sequence[Example]) -> dict:
    contradictions = sum(e.label for e in examples)
    return {
        "examples": len(examples),
        "contradictions": contradictions,
        "non_contradictions": len(examples) - contradictions,
        "contradiction_fraction": _fraction(contradictions, len(examples)),
        "abstracts": len({e.pmid for e in examples}),
    }


def mutation_type_distribution(examples: Sequence[Example]) -> dict[str, dict[str, float]]:
    """Per generator, the fraction of its contradictions of each appendix-D type."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for example in examples:
        if example.label == 1 and example.mutation_type is not None:
            counts[example.generator][example.mutation_type] += 1
    distribution = {}
    for generator, counter in sorted(counts.items()):
        total = sum(counter.values())
        distribution[generator] = {name: _fraction(counter[name], total) for name in TYPE_NAMES}
    return distribution


def rows_per_operator(splits: dict[str, list[Example]]) -> dict[str, dict[str, dict[str, int]]]:
    """Per generator and operator (rule operator, EvoNLI recipe, pair kind), its rows in each split:
    what a per-operator comparison of the trained models has to be read against."""
    counts: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    for split, examples in splits.items():
        for example in examples:
            counts[example.generator][example.operator or "-"][split] += 1
    return {
        generator: {
            operator: {split: per_split[split] for split in SPLITS}
            for operator, per_split in sorted(operators.items())
        }
        for generator, operators in sorted(counts.items())
    }


TAXONOMY_PLOT_FIELDS = ("generator_type", "generator", "mutation_type", "share")


def taxonomy_plot_rows(distribution: dict[str, dict[str, float]]) -> list[dict]:
    """One bar per generator and appendix-D type it produced, for `dvc plots` (zero shares left out)."""
    return [
        {
            "generator_type": f"{generator}: {name}",
            "generator": generator,
            "mutation_type": name,
            "share": share,
        }
        for generator, shares in distribution.items()
        for name, share in sorted(shares.items(), key=lambda item: -item[1])
        if share > 0
    ]


def build_metrics(
    dataset: BuiltDataset, reports: Sequence[SourceReport], params: BuildParams, baseline: float | None
) -> dict:
    examples = dataset.examples
    metrics = {
        "examples": len(examples),
        **{split: split_stats(members) for split, members in dataset.splits.items()},
        "all": split_stats(examples),
        "sources": {report.name: report.summary() for report in reports},
        "sources_unavailable": sum(report.status != "ok" for report in reports),
        "generators": dict(sorted(Counter(e.generator for e in examples).items())),
        "rows_per_operator": rows_per_operator(dataset.splits),
        "removed": dataset.removed,
        "order_swapped_fraction": _fraction(dataset.swapped, len(examples)),
        "mutation_types": mutation_type_distribution(examples),
        "seed": params.seed,
    }
    if baseline is not None:
        metrics["hypothesis_only_roc_auc"] = round(baseline, 4)
    return metrics
