"""Drawing an annotation round: a stratified sample that over-represents the teacher's doubts.

Each source gets its quota (``judgements.sizes``), shared among its strata (operator for
rule edits, mutation type for EvoNLI, pair kind otherwise) in proportion to their size
with a floor (:func:`scicon.sampling.apportion`). Within a stratum items are drawn
without replacement with weight ``1 + boost * (1 - |2p - 1|)``, p the sampling teacher's
P(contradiction) (Efraimidis-Spirakis keys), so pairs near the teacher's boundary are
over-represented. Each item keeps ``sampling_weight``: the pool items of its stratum it
stands for, divided by its relative weight, so figures re-weighted by it estimate the pool.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from scicon.annotation.blinding import annotator_names, blinded_id, hashed_order
from scicon.annotation.controls import CONTRADICTION, control_counts
from scicon.errors import InputFormatError
from scicon.judgements.params import JudgementsParams
from scicon.judgements.pool import Pool, PoolCandidate
from scicon.records.judgements import ControlItem, RoundItem
from scicon.sampling import apportion
from scicon.seeds import derive_seed

NAMESPACE = "scicon-judgements"


def round_item_id(seed: int, round_name: str, key: str) -> str:
    """The id annotators see: a hash that says nothing of the item's source or abstract."""
    return blinded_id("j", NAMESPACE, seed, round_name, key)


def uncertainty_weight(probability: float | None, boost: float) -> float:
    if probability is None:
        return 1.0
    return 1.0 + boost * (1.0 - abs(2.0 * probability - 1.0))


@dataclass(frozen=True)
class RoundSample:
    items: list[RoundItem]
    controls: list[ControlItem]
    assignments: dict[str, list[str]]  # annotator -> item ids, in the order shown
    allocation: dict[str, dict[str, int]]  # stratum -> pool size and sampled count


def draw(
    pool: Pool,
    probabilities: dict[str, float],
    params: JudgementsParams,
    round_name: str,
) -> tuple[list[RoundItem], dict[str, dict[str, int]]]:
    """The round's items from ``pool``; ``probabilities`` maps candidate ids to the teacher's P."""
    by_source: dict[str, dict[str, list[PoolCandidate]]] = defaultdict(lambda: defaultdict(list))
    for candidate in pool.candidates:
        by_source[candidate.source][candidate.stratum].append(candidate)
    rng = np.random.default_rng(derive_seed(params.seed, round_name, "draw"))
    items: list[RoundItem] = []
    allocation: dict[str, dict[str, int]] = {}
    for source, quota in params.sizes.items():
        strata = by_source.get(source, {})
        sizes = {name: len(rows) for name, rows in strata.items()}
        counts = apportion(sizes, quota, minimum=params.min_per_stratum, caps=sizes)
        for stratum in sorted(strata):
            rows = sorted(strata[stratum], key=lambda c: c.candidate_id)
            wanted = counts.get(stratum, 0)
            allocation[stratum] = {"pool": len(rows), "sampled": wanted}
            if wanted == 0:
                continue
            weights = np.array(
                [
                    uncertainty_weight(probabilities.get(c.candidate_id), params.uncertainty_boost)
                    for c in rows
                ]
            )
            keys = np.log(rng.random(len(rows))) / weights
            chosen = np.argsort(-keys, kind="stable")[:wanted]
            for index in chosen:
                candidate = rows[index]
                items.append(
                    RoundItem(
                        **asdict(candidate),
                        item_id=round_item_id(params.seed, round_name, candidate.candidate_id),
                        round=round_name,
                        teacher_probability=probabilities.get(candidate.candidate_id),
                        stratum=stratum,
                        sampling_weight=len(rows) / wanted * float(weights.mean() / weights[index]),
                        readers=1,
                    )
                )
    return items, allocation


def refuse_reserved(items: Sequence[RoundItem], reserved: frozenset[str], origin: str) -> None:
    """An item from a reserved abstract must never be annotated: stop, naming it."""
    for number, item in enumerate(items, start=1):
        for pmid in (item.pmid, item.pmid2):
            if pmid is not None and pmid in reserved:
                raise InputFormatError(
                    origin,
                    f"item {item.item_id} comes from reserved PMID {pmid}; reserved abstracts are never "
                    "annotated",
                    number,
                )


def choose_controls(gold: Sequence[dict], params: JudgementsParams, round_name: str) -> list[list[dict]]:
    """Gold items for each batch, contradictions and the other items as many as
    :func:`scicon.annotation.controls.control_counts` gives; each list is dealt cyclically from
    its own seeded shuffle, so batches share items only when it runs out."""
    rng = np.random.default_rng(derive_seed(params.seed, round_name, "controls"))
    rows = sorted(gold, key=lambda row: row["id"])
    groups = [
        [r for r in rows if r["gold"] == CONTRADICTION],
        [r for r in rows if r["gold"] != CONTRADICTION],
    ]
    groups = [[group[i] for i in rng.permutation(len(group))] for group in groups]
    shares = control_counts(params.controls_per_batch, len(groups[0]), len(groups[1]))
    return [
        [
            group[(batch * share + k) % len(group)]
            for group, share in zip(groups, shares, strict=True)
            for k in range(share)
        ]
        for batch in range(params.annotators)
    ]


def assign(
    items: list[RoundItem], gold: Sequence[dict], params: JudgementsParams, round_name: str
) -> RoundSample:
    """Multi-read items chosen, every item dealt to its annotators, gold controls mixed in,
    each batch in its own seeded order."""
    rng = np.random.default_rng(derive_seed(params.seed, round_name, "assign"))
    order = [items[i] for i in rng.permutation(len(items))]
    multi = {item.item_id for item in order[: params.multi_read]}
    items = [
        item.model_copy(update={"readers": params.readers}) if item.item_id in multi else item
        for item in items
    ]
    batches: dict[str, list[str]] = {name: [] for name in annotator_names(params.annotators)}
    names = list(batches)
    turn = 0
    for item in order:
        readers = params.readers if item.item_id in multi else 1
        for k in range(readers):
            batches[names[(turn + k) % len(names)]].append(item.item_id)
        turn += readers
    controls: list[ControlItem] = []
    for name, rows in zip(names, choose_controls(gold, params, round_name), strict=True):
        for row in rows:
            control = ControlItem(
                item_id=round_item_id(params.seed, round_name, f"control:{name}:{row['id']}"),
                gold_id=row["id"],
                gold=row["gold"],
                garbled=int(row.get("garbled", 0)),
                sentence1=row["sentence1"],
                sentence2=row["sentence2"],
            )
            controls.append(control)
            batches[name].append(control.item_id)
    assignments = {
        name: hashed_order(ids, str, params.seed, round_name, name) for name, ids in batches.items()
    }
    return RoundSample(items=items, controls=controls, assignments=assignments, allocation={})
