"""A seeded, stratified sample of a SciCon build, stable when the build changes a little.

- **Strata** are the combinations of the Example fields in ``audit.strata`` that occur in
  the build (by default generator, label and mutation type, so the label-preserving rule
  controls — generator ``rules``, label 0 — form their own strata). Nothing here lists the
  generators: a new one is a new stratum.
- **Allocation** is proportional to stratum size (largest remainders,
  :func:`scicon.sampling.apportion`), so with ``min_per_stratum: 0`` the sample is
  self-weighting like the paper's simple random sample of 100 pairs; a floor makes rare
  strata visible, and each item then carries the weight (stratum rows / sampled items) that
  :mod:`scicon.audit.figures` uses for build-level figures.
- **Selection** ranks each stratum's rows by a hash of (seed, example id) and takes the top:
  the permanent-random-number method of coordinated survey samples. An example keeps its
  rank from build to build, so a rebuilt SciCon keeps most of the old sample and only the
  rows that entered it need new judgments. Rows are taken from as many different abstracts
  as possible: an abstract gives a second row only when no stratum can be filled from
  unused ones, because seeing a sentence and its edit in two items tells an annotator
  which sentence was edited.
- **Item ids** are the same hash, so they are stable too and reveal nothing (example ids
  end in the generator's name).
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scicon.annotation.blinding import ID_DIGITS, blinded_id, digest
from scicon.audit.blinded import NAMESPACE
from scicon.audit.params import LABEL_VALUES, AuditParams
from scicon.records.audit import AuditItem
from scicon.records.dataset import Example
from scicon.sampling import apportion

log = logging.getLogger(__name__)

LABEL_NAMES = dict(zip((1, 0), LABEL_VALUES, strict=True))
NONE = "none"
ITEM_PREFIX = "item"
ITEM_ID_PATTERN = rf"{ITEM_PREFIX}-[0-9a-f]{{{ID_DIGITS}}}"


def item_id(seed: int, example_id: str) -> str:
    """The blinded id of an example in the audit with ``seed``."""
    return blinded_id(ITEM_PREFIX, NAMESPACE, seed, example_id)


def field_value(example: Example, field: str) -> str:
    """An Example field as a stratum or breakdown value: labels by name, missing as 'none'."""
    value = getattr(example, field)
    if field == "label":
        return LABEL_NAMES[value]
    return NONE if value is None else str(value)


def stratum_of(example: Example, fields: Sequence[str]) -> str:
    return "/".join(field_value(example, field) for field in fields)


@dataclass(frozen=True)
class Stratum:
    population: int
    sampled: int

    @property
    def weight(self) -> float:
        return self.population / self.sampled if self.sampled else 0.0


@dataclass(frozen=True)
class AuditSample:
    items: list[AuditItem]
    strata: dict[str, Stratum]
    requested: int

    def manifest(self, params: AuditParams) -> dict:
        """What was drawn from what (the sample folder's ``manifest.json``)."""
        return {
            "requested": self.requested,
            "items": len(self.items),
            "build_rows": sum(s.population for s in self.strata.values()),
            "strata_fields": list(params.strata),
            "only": {field: list(values) for field, values in params.only.items()},
            "seed": params.seed,
            "min_per_stratum": params.min_per_stratum,
            "abstracts": len({item.example.pmid for item in self.items}),
            "strata": {
                name: {"population": s.population, "sampled": s.sampled, "weight": round(s.weight, 6)}
                for name, s in sorted(self.strata.items())
            },
        }


def draw_sample(examples: Iterable[Example], params: AuditParams) -> AuditSample:
    """The audit sample of the build's rows that ``params.only`` admits, in item-id order."""
    rows = [
        example
        for example in examples
        if all(field_value(example, field) in values for field, values in params.only.items())
    ]
    members: dict[str, list[Example]] = defaultdict(list)
    for example in rows:
        members[stratum_of(example, params.strata)].append(example)
    populations = {h: len(m) for h, m in members.items()}
    quotas = apportion(populations, params.size, minimum=params.min_per_stratum, caps=populations)
    for stratum, quota in sorted(quotas.items()):
        if quota == 0:
            log.info(
                "audit: stratum %s (%d rows) gets no item at size %d",
                stratum,
                len(members[stratum]),
                params.size,
            )

    ranked = sorted(rows, key=lambda e: digest(NAMESPACE, params.seed, e.example_id))
    stratum_by_id = {e.example_id: stratum_of(e, params.strata) for e in rows}
    taken: Counter[str] = Counter()
    per_abstract: Counter[str] = Counter()
    chosen: list[Example] = []
    chosen_ids: set[str] = set()
    most_per_abstract = max(Counter(e.pmid for e in rows).values(), default=0)
    for allowed in range(1, most_per_abstract + 1):
        if all(taken[h] >= q for h, q in quotas.items()):
            break
        for example in ranked:
            h = stratum_by_id[example.example_id]
            if (
                example.example_id in chosen_ids
                or taken[h] >= quotas[h]
                or per_abstract[example.pmid] >= allowed
            ):
                continue
            chosen.append(example)
            chosen_ids.add(example.example_id)
            taken[h] += 1
            per_abstract[example.pmid] += 1

    strata = {h: Stratum(population=len(members[h]), sampled=taken[h]) for h in members}
    items = [
        AuditItem(
            item_id=item_id(params.seed, example.example_id),
            stratum=stratum_by_id[example.example_id],
            weight=strata[stratum_by_id[example.example_id]].weight,
            example=example,
        )
        for example in chosen
    ]
    if len({item.item_id for item in items}) != len(items):
        raise ValueError("audit: two examples share an item id (duplicate example ids in the build?)")
    items.sort(key=lambda item: item.item_id)
    log.info(
        "audit: %d items from %d rows in %d strata, %d abstracts",
        len(items),
        len(rows),
        len(members),
        len({i.example.pmid for i in items}),
    )
    if len(items) < params.size:
        log.warning(
            "audit: the build's %d rows give %d items, fewer than audit.size=%d",
            len(rows),
            len(items),
            params.size,
        )
    return AuditSample(items=items, strata=strata, requested=params.size)
