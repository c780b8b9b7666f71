"""Question clusters and where each study stands in them.

Claims joined by a comparable candidate pair (same topic, nothing in the text saying
otherwise) form a question cluster (connected components, scipy). Within a cluster with a
flagged contradiction, the claim in the most flagged pairs is the reference, and the flagged
pairs are read as "says the opposite": a claim reached from the reference through an even
number of them says *yes* (as the reference does), an odd number *no* — unless the flagged
pairs have a cycle of odd length, which leaves every claim they connect *mixed* — and a
claim in no flagged pair *neither*. Flagged pairs of one cluster that do not connect make
parts of their own (Q3, Q3.2), each with its own reference.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

YES, NO, MIXED, NEITHER = "yes", "no", "mixed", "neither"
STANCES = (YES, NO, MIXED, NEITHER)  # the order a group lists its members in


@dataclass(frozen=True)
class Edge:
    first: int
    second: int
    flagged: bool


@dataclass(frozen=True)
class StanceGroup:
    question: str  # "Q1", "Q2", ... in the order of the cluster's best-ranked pair
    reference: int  # the claim the stances are relative to
    stances: dict[int, str]  # claim -> yes | no | neither | mixed


def clusters(count: int, edges: Sequence[Edge]) -> np.ndarray:
    """The cluster of every claim (claims in no edge are clusters of their own)."""
    if not edges:
        return np.arange(count)
    rows = [edge.first for edge in edges]
    columns = [edge.second for edge in edges]
    graph = coo_matrix((np.ones(len(edges)), (rows, columns)), shape=(count, count))
    return connected_components(graph, directed=False)[1]


def stance_groups(
    labels: np.ndarray, ranked_edges: Sequence[Edge]
) -> tuple[dict[int, str], list[StanceGroup]]:
    """Question names per cluster label (every cluster with an edge) and the stance groups of
    the clusters with a flagged pair; ``ranked_edges`` best first, so Q1 holds the top pair."""
    names: dict[int, str] = {}
    for edge in ranked_edges:
        names.setdefault(int(labels[edge.first]), f"Q{len(names) + 1}")
    members: dict[int, list[int]] = {}
    for claim, label in enumerate(labels):
        if int(label) in names:
            members.setdefault(int(label), []).append(claim)
    opposite: dict[int, list[int]] = {}
    for edge in ranked_edges:
        if edge.flagged:
            opposite.setdefault(edge.first, []).append(edge.second)
            opposite.setdefault(edge.second, []).append(edge.first)
    groups = []
    for label, name in names.items():
        flagged_degree = {claim: len(opposite.get(claim, [])) for claim in members[label]}
        unplaced = sorted(
            (c for c in members[label] if flagged_degree[c]), key=lambda c: (-flagged_degree[c], c)
        )
        part = 0
        while unplaced:
            reference = unplaced[0]
            part += 1
            # the first part of a cluster also lists the cluster's claims in no flagged pair
            others = [c for c in members[label] if not flagged_degree[c]] if part == 1 else []
            stances = _two_sides(reference, opposite, others)
            groups.append(StanceGroup(name if part == 1 else f"{name}.{part}", reference, stances))
            unplaced = [claim for claim in unplaced if claim not in stances]
    return names, groups


def _two_sides(reference: int, opposite: dict[int, list[int]], others: list[int]) -> dict[int, str]:
    side = {reference: 0}
    two_sided = True
    queue = deque([reference])
    while queue:
        claim = queue.popleft()
        for other in opposite.get(claim, []):
            if other not in side:
                side[other] = 1 - side[claim]
                queue.append(other)
            elif side[other] == side[claim]:
                two_sided = False
    # with an odd cycle no claim of the part has a side that every flagged pair agrees with
    stances = {claim: (YES if where == 0 else NO) if two_sided else MIXED for claim, where in side.items()}
    return stances | {claim: NEITHER for claim in others}
