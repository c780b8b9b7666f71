"""Agreement of an annotation panel: Fleiss' κ, Gwet's AC1, unanimity and the majority vote.

Ratings are given as a count table: one row per item, one column per category, each cell
the number of raters who put the item in that category (statsmodels' layout, see
``statsmodels.stats.inter_rater.aggregate_raters``). Rows may have different totals when
raters skipped items.

- **Fleiss' κ** is statsmodels' ``fleiss_kappa``, which needs the same number of ratings
  on every item; callers pass the items every rater judged.
- **Gwet's AC1** is written here (statsmodels has none), following K. L. Gwet, "Computing
  inter-rater reliability and its variance in the presence of high agreement" (British
  Journal of Mathematical and Statistical Psychology, 2008) and his *Handbook of
  Inter-Rater Reliability* (4th ed., 2014) for items with missing ratings: observed
  agreement over items with at least two ratings, chance agreement from the mean
  per-item category shares. It is checked in the tests against the handbook's worked
  example.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from statsmodels.stats.inter_rater import fleiss_kappa as _statsmodels_fleiss_kappa


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def fleiss_kappa(table: np.ndarray | Sequence[Sequence[int]]) -> float | None:
    """Fleiss' κ of a count table with the same number (≥ 2) of ratings per item; None if undefined."""
    table = np.asarray(table, dtype=float)
    if table.size == 0:
        return None
    totals = table.sum(axis=1)
    if totals.min() != totals.max():
        raise ValueError("Fleiss' kappa needs the same number of ratings on every item")
    if totals[0] < 2:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        return _finite(_statsmodels_fleiss_kappa(table, method="fleiss"))


def gwet_ac1(table: np.ndarray | Sequence[Sequence[int]]) -> float | None:
    """Gwet's AC1 of a count table (items × categories), missing ratings allowed; None if undefined.

    With r_i ratings of item i, r_ik of them in category k, and q categories:
    p_a = mean over items with r_i ≥ 2 of Σ_k r_ik (r_ik − 1) / (r_i (r_i − 1)),
    π_k = mean over items with r_i ≥ 1 of r_ik / r_i,
    p_e = Σ_k π_k (1 − π_k) / (q − 1),  AC1 = (p_a − p_e) / (1 − p_e).
    """
    table = np.asarray(table, dtype=float)
    if table.ndim != 2 or table.shape[1] < 2:
        return None
    totals = table.sum(axis=1)
    paired = totals >= 2
    if not paired.any():
        return None
    rated = totals >= 1
    categories = table.shape[1]
    shares = (table[rated] / totals[rated, None]).mean(axis=0)
    chance = float((shares * (1 - shares)).sum()) / (categories - 1)
    observed = float(
        ((table[paired] * (table[paired] - 1)).sum(axis=1) / (totals[paired] * (totals[paired] - 1))).mean()
    )
    return _finite((observed - chance) / (1 - chance))


def unanimity(table: np.ndarray | Sequence[Sequence[int]]) -> float | None:
    """Share of items (with ≥ 2 ratings) on which every rater chose the same category."""
    table = np.asarray(table, dtype=float)
    totals = table.sum(axis=1) if table.size else np.zeros(0)
    paired = totals >= 2
    if not paired.any():
        return None
    return float((table[paired].max(axis=1) == totals[paired]).mean())


def majority(votes: Sequence[int]) -> int | None:
    """The label more than half of ``votes`` (0/1 labels) carry; None on a tie or no votes."""
    ones = sum(votes)
    zeros = len(votes) - ones
    if ones == zeros:
        return None
    return 1 if ones > zeros else 0
