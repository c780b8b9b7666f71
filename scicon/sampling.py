"""A seeded sample that keeps the items' order: one definition for every capped list."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")


def seeded_sample(items: Sequence[T], limit: int | None, seed: int | Sequence[int]) -> list[T]:
    """At most ``limit`` items, drawn without replacement by ``seed`` and kept in their order."""
    if limit is None or len(items) <= limit:
        return list(items)
    keep = np.sort(np.random.default_rng(seed).choice(len(items), size=limit, replace=False))
    return [items[i] for i in keep]
