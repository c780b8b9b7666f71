"""Candidate pairs without comparing every claim with every other: an HNSW graph (faiss).

faiss is Meta's similarity-search library, maintained, with CPU wheels on PyPI; its HNSW
index answers a k-nearest-neighbour query in roughly logarithmic time, so candidate
generation grows as n·log n rather than n² (``perf/find_scaling.py`` measures it at 1k, 10k
and 100k claims). The graph is built single-threaded: insertion order and the level draws
are then fixed, so a rerun finds the same neighbours (queries, which are read-only, use
every core).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Neighbours:
    pairs: list[tuple[int, int, float]]  # (i, j, cosine), i < j, claims of different groups
    looked_at: int  # neighbour slots read, same-group ones included


def candidate_pairs(
    vectors: np.ndarray, groups: Sequence[str], k: int, links: int, construction: int, search: int
) -> Neighbours:
    """Each claim's ``k`` nearest claims of other groups, as unordered pairs with their cosine."""
    logging.getLogger("faiss.loader").setLevel(logging.WARNING)  # which CPU build it loads
    import faiss

    count = len(groups)
    if count < 2:
        return Neighbours([], 0)
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    index = faiss.IndexHNSWFlat(vectors.shape[1], links, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = construction
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        index.add(vectors)
    finally:
        faiss.omp_set_num_threads(threads)
    # a claim's own study may fill slots: ask for enough to still find k of other studies
    largest_group = max(Counter(groups).values())
    wanted = min(count, k + largest_group)
    index.hnsw.efSearch = max(search, wanted)
    cosines, rows = index.search(vectors, wanted)
    found: dict[tuple[int, int], float] = {}
    for i in range(count):
        taken = 0
        for j, cosine in zip(rows[i], cosines[i], strict=True):
            if j < 0 or j == i or groups[j] == groups[i]:
                continue
            found.setdefault((min(i, int(j)), max(i, int(j))), float(cosine))
            taken += 1
            if taken == k:
                break
    return Neighbours(sorted((i, j, c) for (i, j), c in found.items()), count * wanted)
