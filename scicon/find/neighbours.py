"""Candidate pairs without comparing every claim with every other: an HNSW graph (faiss), and
claims that share distinctive terms.

faiss is Meta's similarity-search library, maintained, with CPU wheels on PyPI; its HNSW
index answers a k-nearest-neighbour query in roughly logarithmic time, so candidate
generation grows as n·log n rather than n² (``perf/find_scaling.py`` measures it at 1k, 10k
and 100k claims). The graph is built single-threaded: insertion order and the level draws
are then fixed, so a rerun finds the same neighbours (queries, which are read-only, use
every core).

Embeddings find claims that read alike; two claims of one question can read apart ("Masks
prevent the spread of COVID-19" and "do surgical masks actually prevent it? No"), and in a
large question each claim's nearest few are all of one crowd. Two more routes cover those:
claims that share distinctive content terms (an intervention, an outcome: terms few claims
use, so a corpus-wide word such as "COVID-19" in a COVID corpus routes nothing), and blocking
by the question a claims file gives, within which the nearest neighbours are searched.
"""

from __future__ import annotations

import itertools
import logging
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

NEIGHBOURS, SHARED_TERMS = "neighbours", "shared terms"  # the routes by which a pair is found


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


def blocked_candidate_pairs(
    vectors: np.ndarray,
    groups: Sequence[str],
    blocks: Sequence[str | None],
    k: int,
    links: int,
    construction: int,
    search: int,
) -> Neighbours:
    """Each claim's ``k`` nearest claims of other groups within its block (the question a claims
    file gives it; claims without one are one block)."""
    members: dict[str | None, list[int]] = defaultdict(list)
    for claim, block in enumerate(blocks):
        members[block].append(claim)
    if len(members) == 1:
        return candidate_pairs(vectors, groups, k, links, construction, search)
    pairs, looked_at = [], 0
    for block in sorted(members, key=lambda name: (name is None, name or "")):
        rows = members[block]
        found = candidate_pairs(vectors[rows], [groups[i] for i in rows], k, links, construction, search)
        pairs += [(rows[i], rows[j], cosine) for i, j, cosine in found.pairs]
        looked_at += found.looked_at
    return Neighbours(sorted((min(i, j), max(i, j), c) for i, j, c in pairs), looked_at)


def shared_term_pairs(
    terms: Sequence[frozenset[str]],
    groups: Sequence[str],
    blocks: Sequence[str | None],
    terms_needed: int,
    max_claims: int,
) -> list[tuple[int, int]]:
    """Pairs of claims of different groups (and one block) that share at least ``terms_needed``
    terms used by at most ``max_claims`` claims each: an inverted index, so the cost is the sum
    over distinctive terms of their claims squared, never all pairs."""
    index: dict[str, list[int]] = defaultdict(list)
    for claim, claim_terms in enumerate(terms):
        for term in claim_terms:
            index[term].append(claim)
    shared: Counter = Counter()
    for claims in index.values():
        if len(claims) > max_claims:
            continue
        for i, j in itertools.combinations(claims, 2):
            if groups[i] != groups[j] and blocks[i] == blocks[j]:
                shared[i, j] += 1
    # a count of terms, not a probability: no threshold rule applies
    return sorted(pair for pair, count in shared.items() if count >= terms_needed)
