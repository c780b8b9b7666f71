"""Samples: a seeded sample that keeps the items' order (one definition for every capped list),
and a total shared out in proportion (one apportionment for every quota)."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def seeded_sample(items: Sequence[T], limit: int | None, seed: int | Sequence[int]) -> list[T]:
    """At most ``limit`` items, drawn without replacement by ``seed`` and kept in their order."""
    if limit is None or len(items) <= limit:
        return list(items)
    keep = np.sort(np.random.default_rng(seed).choice(len(items), size=limit, replace=False))
    return [items[i] for i in keep]


def apportion(
    weights: Mapping[K, float],
    total: int,
    *,
    minimum: int = 0,
    caps: Mapping[K, int] | None = None,
) -> dict[K, int]:
    """``total`` shared out in proportion to ``weights``, by largest remainders (Hamilton's
    method), at least ``minimum`` each and never more than its cap (``caps``: none).

    A part whose proportional share is below its floor gets the floor, and the others share
    what is left in proportion (repeated until no share falls below a floor). When the floors
    alone exceed ``total``, the largest parts get theirs first. The remainder goes to the
    largest remainders, ties to the larger weight, then to the first key in sorted order.
    """
    cap = {part: math.inf if caps is None else caps[part] for part in weights}
    if caps is not None:
        total = min(total, sum(caps.values()))
    by_size = sorted(weights, key=lambda part: (-weights[part], part))
    floors, budget = {}, total
    for part in by_size:
        floors[part] = min(cap[part], minimum, budget)
        budget -= floors[part]
    pinned: dict[K, int] = {}
    while True:
        free = [part for part in by_size if part not in pinned]
        budget = total - sum(pinned.values())
        free_weight = sum(weights[part] for part in free)
        share = {part: budget * weights[part] / free_weight if free_weight else 0.0 for part in free}
        below = {part: floors[part] for part in free if share[part] < floors[part]}
        if not below:
            break
        pinned |= below
    counts = pinned | {part: min(cap[part], math.floor(share[part])) for part in free}
    by_remainder = sorted(
        free, key=lambda part: (-(share[part] - math.floor(share[part])), -weights[part], part)
    )
    for part in by_remainder:
        if sum(counts.values()) >= total:
            break
        if counts[part] < cap[part]:
            counts[part] += 1
    return {part: int(count) for part, count in counts.items()}
