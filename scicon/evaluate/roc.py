"""ROC-AUC with a stratified bootstrap interval, and a paired bootstrap test between two scorers.

The paper validates its Table 1 comparisons with "bootstrap significance testing
(1,000 samples)". Here each resample draws the positives and the negatives with
replacement separately (a stratified bootstrap), so every resample keeps the
benchmark's class counts and its AUC is always defined. The interval is the
percentile interval of the resampled AUCs. The paired test resamples the same
examples for both scorers and reports the two-sided bootstrap p-value of the AUC
difference being zero: twice the smaller tail of the resampled differences, with
the usual +1 correction so it is never exactly 0.

AUCs are computed from ranks (the Mann-Whitney U statistic, ties counted half),
which equals scikit-learn's ``roc_auc_score`` and vectorises over resamples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

from scicon.annotation.intervals import percentile_interval


@dataclass(frozen=True)
class AucEstimate:
    auc: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class PairedComparison:
    difference: float  # AUC(a) - AUC(b)
    ci_low: float
    ci_high: float
    p_value: float


def rank_auc(labels: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """ROC-AUC along the last axis of ``scores`` (shape (..., n)); ``labels`` is (n,) of 0/1."""
    labels = np.asarray(labels).astype(bool)
    positives = int(labels.sum())
    negatives = labels.size - positives
    if positives == 0 or negatives == 0:
        raise ValueError("ROC-AUC needs both classes")
    ranks = rankdata(scores, axis=-1)
    positive_rank_sum = ranks[..., labels].sum(axis=-1)
    return (positive_rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def stratified_resamples(labels: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Index arrays (resamples, n): positives and negatives each drawn with replacement."""
    labels = np.asarray(labels).astype(bool)
    rng = np.random.default_rng(seed)
    positive, negative = np.flatnonzero(labels), np.flatnonzero(~labels)
    drawn_positive = positive[rng.integers(0, positive.size, size=(resamples, positive.size))]
    drawn_negative = negative[rng.integers(0, negative.size, size=(resamples, negative.size))]
    return np.concatenate([drawn_positive, drawn_negative], axis=1)


def _resampled_auc(labels: np.ndarray, scores: np.ndarray, indices: np.ndarray) -> np.ndarray:
    # every resample has the same class layout: positives first, then negatives
    positives = int(np.asarray(labels).astype(bool).sum())
    layout = np.zeros(indices.shape[1], dtype=bool)
    layout[:positives] = True
    return rank_auc(layout, np.asarray(scores, dtype=float)[indices])


def auc_with_interval(
    labels: Sequence[int],
    scores: Sequence[float],
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> AucEstimate:
    labels_array, scores_array = np.asarray(labels), np.asarray(scores, dtype=float)
    point = float(rank_auc(labels_array, scores_array))
    indices = stratified_resamples(labels_array, resamples, seed)
    low, high = percentile_interval(_resampled_auc(labels_array, scores_array, indices), confidence)
    return AucEstimate(auc=point, ci_low=low, ci_high=high)


def paired_auc_test(
    labels: Sequence[int],
    scores_a: Sequence[float],
    scores_b: Sequence[float],
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairedComparison:
    """Paired stratified bootstrap of AUC(a) - AUC(b) on the same examples."""
    labels_array = np.asarray(labels)
    a, b = np.asarray(scores_a, dtype=float), np.asarray(scores_b, dtype=float)
    if a.shape != b.shape or a.shape != labels_array.shape:
        raise ValueError("paired scores must cover the same examples")
    difference = float(rank_auc(labels_array, a) - rank_auc(labels_array, b))
    indices = stratified_resamples(labels_array, resamples, seed)
    differences = _resampled_auc(labels_array, a, indices) - _resampled_auc(labels_array, b, indices)
    low, high = percentile_interval(differences, confidence)
    tail = min(np.sum(differences <= 0), np.sum(differences >= 0))
    p_value = min(1.0, 2 * (tail + 1) / (resamples + 1))
    return PairedComparison(difference=difference, ci_low=low, ci_high=high, p_value=float(p_value))


def roc_points(labels: Sequence[int], scores: Sequence[float]) -> list[dict]:
    """(fpr, tpr, threshold) rows of the ROC curve, for `dvc plots`."""
    from sklearn.metrics import roc_curve

    fpr, tpr, thresholds = roc_curve(np.asarray(labels), np.asarray(scores, dtype=float))
    return [
        {"fpr": round(float(f), 6), "tpr": round(float(t), 6), "threshold": round(float(min(h, 1e9)), 6)}
        for f, t, h in zip(fpr, tpr, thresholds, strict=True)
    ]
