"""A share with its Wilson interval, and percentile bootstrap intervals: every interval a figure gives.

- **Wilson intervals** are statsmodels' ``proportion_confint(method="wilson")``; a count of hits
  among reads (answers agreeing with a key, contradictions among read pairs, searches that
  succeeded) is reported as one entry, :func:`share_with_interval`.
- **Percentile intervals** are the central ``level`` share of resampled values,
  :func:`percentile_interval`, whatever was resampled (ROC-AUCs, precisions, agreement ratios).
- :func:`bootstrap_ratio_interval` resamples items, not single judgments, because one item's
  judgments are not independent of each other; resampling happens within strata when the sample
  was stratified. scipy's ``bootstrap`` has no stratified resampling, so this is a seeded numpy
  percentile bootstrap.

The level is always passed in: it is a ``confidence_level`` key of the params section the
figures belong to.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from statsmodels.stats.proportion import proportion_confint

SHARE_DIGITS = 4  # a share is a count's ratio: four places tell apart 1 in 10,000


def wilson_interval(hits: int, of: int, level: float) -> tuple[float, float] | None:
    """The Wilson interval of ``hits`` successes in ``of`` trials; None with no trial."""
    if of == 0:
        return None
    low, high = proportion_confint(hits, of, alpha=1 - level, method="wilson")
    return float(low), float(high)


def share_with_interval(hits: int, of: int, level: float, digits: int = SHARE_DIGITS) -> dict:
    """``hits`` of ``of`` as a report entry: the counts, the share and its Wilson interval
    (share and interval None when there is nothing to count), rounded to ``digits`` places."""
    interval = wilson_interval(hits, of, level)
    return {
        "hits": hits,
        "of": of,
        "share": round(hits / of, digits) if of else None,
        "interval": [round(bound, digits) for bound in interval] if interval else None,
    }


def percentile_interval(values: Sequence[float] | np.ndarray, level: float) -> tuple[float, float] | None:
    """The central ``level`` share of resampled ``values`` (NaNs, undefined resamples, left out);
    None when no value is defined."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return None
    tail = (1.0 - level) / 2
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return float(low), float(high)


def bootstrap_ratio_interval(
    numerators: Sequence[float],
    denominators: Sequence[float],
    *,
    resamples: int,
    level: float,
    seed: int,
    weights: Sequence[float] | None = None,
    strata: Sequence[str] | None = None,
) -> tuple[float, float] | None:
    """Percentile interval of Σ w·numerator / Σ w·denominator, resampling items (within strata).

    Per item: numerator = agreeing judgments, denominator = judgments (or 1/0 for a
    majority-vote hit). None with fewer than two items that have a denominator.
    """
    num = np.asarray(numerators, dtype=float)
    den = np.asarray(denominators, dtype=float)
    w = np.ones_like(num) if weights is None else np.asarray(weights, dtype=float)
    keep = den > 0
    if keep.sum() < 2:
        return None
    num, den, w = num[keep] * w[keep], den[keep] * w[keep], w[keep]
    groups = np.zeros(len(num), dtype=int)
    if strata is not None:
        _, groups = np.unique(np.asarray(strata, dtype=object)[keep].astype(str), return_inverse=True)
    rng = np.random.default_rng(seed)
    num_total = np.zeros(resamples)
    den_total = np.zeros(resamples)
    for group in np.unique(groups):
        members = np.flatnonzero(groups == group)
        draws = members[rng.integers(0, len(members), size=(resamples, len(members)))]
        num_total += num[draws].sum(axis=1)
        den_total += den[draws].sum(axis=1)
    return percentile_interval(num_total[den_total > 0] / den_total[den_total > 0], level)
