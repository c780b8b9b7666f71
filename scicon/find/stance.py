"""Question clusters, and where each claim stands on its cluster's question.

**Question clusters.** Claims joined by comparable candidate pairs (same topic, nothing in
the text saying otherwise) form a question cluster (connected components, scipy); claims a
claims file gives a ``question`` are clustered by it instead.

**Stance: one split per question, not a chain of pairs.** In a cluster with a flagged pair,
every scored pair of the cluster speaks at once. A pair's score is read as the probability
that its two claims take opposite sides of the question, measured against the flag
threshold: its weight is ``w = logit(score) - logit(threshold)``, positive ("opposite
sides") above the threshold and negative ("the same side") below it, as strongly as the
score is sure. The split ``s`` (+1 or -1 per claim) is the one that agrees best with all
weights together, the least ``E(s) = sum over pairs of w * s_i * s_j``: every split is tried
for a cluster of up to ``exact_up_to`` claims; a larger one starts from the signs of the
eigenvector of the weight matrix's least eigenvalue (the spectral relaxation) and moves
one claim at a time while a move lowers ``E``. A flagged pair the rest of the cluster
outweighs is overruled — the two claims stay on one side — instead of marking the cluster
``mixed``.

Taken as independent likelihoods (a pair on opposite sides with probability its score,
against the prior the threshold stands for), the weights give every split the posterior
``exp(-E(s) / 2)``. A claim's **confidence** is the probability that it stands where the
split puts it relative to each other claim of the cluster, averaged over them: exact
(summed over every split) up to ``exact_up_to`` claims, given the other claims' sides
beyond. A claim below ``min_confidence`` is *neither* (nothing in the scores places it); the
others say *yes* (the side of the reference: the surest claim of the larger side) or *no*.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from scicon.params import meets_threshold

YES, NO, NEITHER = "yes", "no", "neither"
STANCES = (YES, NO, NEITHER)  # the order a group lists its members in
LOGIT_LIMIT = 9.0  # a score of 0 or 1 is sure, not infinitely sure: |logit| at most this


@dataclass(frozen=True)
class Edge:
    """A comparable pair of claims (indices) and its score (None: not scored)."""

    first: int
    second: int
    score: float | None = None
    flagged: bool = False


@dataclass(frozen=True)
class Split:
    """The two sides of one question cluster."""

    members: tuple[int, ...]  # claims of the cluster, ascending
    sides: dict[int, int]  # claim -> +1 (the reference's side) or -1
    confidence: dict[int, float]  # claim -> probability that its side relative to the others is right
    reference: int
    agreement: float  # share of the pairs' total |weight| the split agrees with


@dataclass(frozen=True)
class StanceGroup:
    question: str  # "Q1", "Q2", ... in the order of the cluster's best-ranked pair
    split: Split
    stances: dict[int, str]  # claim -> yes | no | neither


def clusters(count: int, edges: Sequence[Edge], given: Sequence[str | None] | None = None) -> np.ndarray:
    """The cluster of every claim: its given question where it has one, else the connected
    component of the comparable pairs (a claim in no pair is a cluster of its own)."""
    if given is not None and any(given):
        names = {name: number for number, name in enumerate(sorted({g for g in given if g}))}
        # claims without a question each stay alone, after the named clusters
        return np.asarray([names[g] if g else len(names) + i for i, g in enumerate(given)])
    if not edges:
        return np.arange(count)
    rows = [edge.first for edge in edges]
    columns = [edge.second for edge in edges]
    graph = coo_matrix((np.ones(len(edges)), (rows, columns)), shape=(count, count))
    return connected_components(graph, directed=False)[1]


def pair_weight(score: float, threshold: float) -> float:
    """Log-odds that a pair's claims take opposite sides, against the flag threshold."""
    return _logit(score) - _logit(threshold)


def _logit(probability: float) -> float:
    if probability <= 0.0:
        return -LOGIT_LIMIT
    if probability >= 1.0:
        return LOGIT_LIMIT
    return max(-LOGIT_LIMIT, min(LOGIT_LIMIT, math.log(probability / (1.0 - probability))))


def weight_matrix(members: Sequence[int], edges: Sequence[Edge], threshold: float) -> np.ndarray:
    """Symmetric pair weights between the cluster's claims (0 where no pair was scored)."""
    where = {claim: position for position, claim in enumerate(members)}
    weights = np.zeros((len(members), len(members)))
    for edge in edges:
        if edge.score is not None and edge.first in where and edge.second in where:
            i, j = where[edge.first], where[edge.second]
            weights[i, j] = weights[j, i] = pair_weight(edge.score, threshold)
    return weights


def split_cluster(
    members: Sequence[int], edges: Sequence[Edge], threshold: float, exact_up_to: int, min_confidence: float
) -> Split:
    """The two-way split of ``members`` that agrees best with the weights of ``edges``; the
    reference's side is the one with more claims sure of their side (``min_confidence``)."""
    weights = weight_matrix(members, edges, threshold)
    if len(members) <= exact_up_to:
        signs, confidence = _exact(weights)
    else:
        signs = _local_search(weights, _spectral(weights))
        confidence = _conditional_confidence(weights, signs)
    return _oriented(members, weights, signs, confidence, min_confidence)


def _energies(weights: np.ndarray, states: np.ndarray) -> np.ndarray:
    """E(s) of each row of ``states``: the sum over pairs (i < j) of w_ij s_i s_j."""
    return 0.5 * np.einsum("si,ij,sj->s", states, weights, states)


def _exact(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every split (the first claim fixed: a split and its mirror are one), the best one and each
    claim's posterior probability of standing where it does relative to the others."""
    count = len(weights)
    rest = np.asarray(list(itertools.product((1.0, -1.0), repeat=count - 1))).reshape(-1, count - 1)
    states = np.hstack([np.ones((len(rest), 1)), rest])
    energies = _energies(weights, states)
    best = states[int(np.argmin(energies))]
    posterior = np.exp(-(energies - energies.min()) / 2.0)
    posterior /= posterior.sum()
    # P(s_i s_j as in the best split), averaged over the other claims j
    together = np.einsum("s,si,sj->ij", posterior, states, states)  # E[s_i s_j] in [-1, 1]
    agree = (1.0 + together * np.outer(best, best)) / 2.0
    return best, _mean_off_diagonal(agree)


def _mean_off_diagonal(matrix: np.ndarray) -> np.ndarray:
    count = len(matrix)
    if count < 2:
        return np.ones(count)
    return (matrix.sum(axis=1) - np.diag(matrix)) / (count - 1)


def _spectral(weights: np.ndarray) -> np.ndarray:
    """Signs of the eigenvector of the least eigenvalue: the relaxed minimum of s'Ws."""
    _, vectors = np.linalg.eigh(weights)
    signs = np.where(vectors[:, 0] >= 0, 1.0, -1.0)
    return signs if signs[0] > 0 else -signs


def _local_search(weights: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """Move the claim whose move lowers E most, while one does (E falls each time: it ends)."""
    signs = signs.copy()
    while True:
        gains = signs * (weights @ signs)  # flipping i lowers E by 2 * gains[i]
        best = int(np.argmax(gains))
        if gains[best] <= 1e-12:
            return signs if signs[0] > 0 else -signs
        signs[best] = -signs[best]


def _conditional_confidence(weights: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """P(each claim's side | every other claim's side): 1 / (1 + exp(-|h_i|)) at a local minimum."""
    fields = weights @ signs
    return 1.0 / (1.0 + np.exp(-np.abs(fields)))


def _oriented(
    members: Sequence[int],
    weights: np.ndarray,
    signs: np.ndarray,
    confidence: np.ndarray,
    min_confidence: float,
) -> Split:
    """The split with the reference's side as +1: the surest claim of the side with more claims sure
    of their side (on a tie, the side surer in sum), and how much of the pairs' weight it agrees with."""
    sure = np.asarray([meets_threshold(float(c), min_confidence) for c in confidence])

    def weight(side: float) -> tuple[int, float]:
        return int((sure & (signs == side)).sum()), float(confidence[signs == side].sum())

    larger = 1.0 if weight(1.0) >= weight(-1.0) else -1.0
    candidates = [i for i in range(len(members)) if signs[i] == larger]
    reference = max(candidates, key=lambda i: (round(float(confidence[i]), 9), -i))
    oriented = signs * signs[reference]
    upper = np.triu(weights, 1)
    agreeing = np.where(upper * np.outer(oriented, oriented) <= 0, np.abs(upper), 0.0).sum()
    total = np.abs(upper).sum()
    return Split(
        members=tuple(members),
        sides={claim: int(oriented[i]) for i, claim in enumerate(members)},
        confidence={claim: float(confidence[i]) for i, claim in enumerate(members)},
        reference=members[reference],
        agreement=float(agreeing / total) if total > 0 else 1.0,
    )


def stance_groups(
    labels: np.ndarray,
    ranked_edges: Sequence[Edge],
    threshold: float | None,
    exact_up_to: int,
    min_confidence: float,
) -> tuple[dict[int, str], list[StanceGroup]]:
    """Question names per cluster label (every cluster with an edge), and the stance group of
    each cluster with a flagged pair (none when nothing is flagged: ``threshold`` None);
    ``ranked_edges`` best first, so Q1 holds the top pair."""
    names: dict[int, str] = {}
    edges_of: dict[int, list[Edge]] = {}
    for edge in ranked_edges:
        label = int(labels[edge.first])
        names.setdefault(label, f"Q{len(names) + 1}")
        edges_of.setdefault(label, []).append(edge)
    if threshold is None:
        return names, []
    members: dict[int, list[int]] = {}
    for claim, label in enumerate(labels):
        if int(label) in names:
            members.setdefault(int(label), []).append(claim)
    groups = []
    for label, name in names.items():
        if any(edge.flagged for edge in edges_of[label]):
            split = split_cluster(members[label], edges_of[label], threshold, exact_up_to, min_confidence)
            groups.append(StanceGroup(name, split, _stances(split, min_confidence)))
    return names, groups


def _stances(split: Split, min_confidence: float) -> dict[int, str]:
    return {
        claim: NEITHER
        if not meets_threshold(split.confidence[claim], min_confidence)
        else (YES if split.sides[claim] > 0 else NO)
        for claim in split.members
    }
