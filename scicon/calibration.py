"""Scores turned into probabilities, fitted on held-out labelled examples, and how good they are.

EvoNLI's thresholds (``sim``, ``claim``, ``target``) are probabilities in the paper: the
answer "yes" to a question. A model's raw score (a cosine, a classifier's softmax, a
TF-IDF regression) is not one until it is calibrated on labelled examples it was not
trained on. Two standard maps, both from scikit-learn:

- ``sigmoid`` (Platt scaling): a logistic regression on the score's logit, smooth and
  monotone, good with few examples;
- ``isotonic``: a monotone step function (scikit-learn's ``IsotonicRegression``, read back
  as piecewise-linear interpolation), more flexible, wants more examples.

A :class:`Calibration` is a few numbers, saved as JSON beside the model it calibrates, so
a stage applies exactly what was fitted. :func:`calibration_report` gives the quality
figures a stage reports: ROC-AUC, Brier score, log loss and expected calibration error.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from scicon.io import write_json

Method = Literal["sigmoid", "isotonic"]
_EPSILON = 1e-6


def _logit(values: np.ndarray) -> np.ndarray:
    clipped = np.clip(values, _EPSILON, 1 - _EPSILON)
    return np.log(clipped / (1 - clipped))


@dataclass(frozen=True)
class Calibration:
    """A fitted map from raw scores in [0, 1] to probabilities.

    ``sigmoid`` keeps ``coefficient`` and ``intercept`` of p = σ(a·logit(s) + b);
    ``isotonic`` keeps the breakpoints ``x`` (raw) and ``y`` (probability).
    """

    method: Method
    coefficient: float = 1.0
    intercept: float = 0.0
    x: tuple[float, ...] = field(default_factory=tuple)
    y: tuple[float, ...] = field(default_factory=tuple)
    examples: int = 0

    def __call__(self, raw: Sequence[float] | np.ndarray) -> np.ndarray:
        values = np.asarray(raw, dtype=float)
        if self.method == "sigmoid":
            return 1.0 / (1.0 + np.exp(-(self.coefficient * _logit(values) + self.intercept)))
        return np.interp(values, self.x, self.y)

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "coefficient": self.coefficient,
            "intercept": self.intercept,
            "x": list(self.x),
            "y": list(self.y),
            "examples": self.examples,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Calibration:
        return cls(
            method=data["method"],
            coefficient=float(data.get("coefficient", 1.0)),
            intercept=float(data.get("intercept", 0.0)),
            x=tuple(float(v) for v in data.get("x", ())),
            y=tuple(float(v) for v in data.get("y", ())),
            examples=int(data.get("examples", 0)),
        )

    def save(self, path: str | os.PathLike) -> None:
        write_json(path, self.to_dict())

    @classmethod
    def load(cls, path: str | os.PathLike) -> Calibration:
        with open(path, encoding="utf-8") as handle:
            return cls.from_dict(json.load(handle))


def fit_calibration(raw: Sequence[float], labels: Sequence[int], method: Method = "sigmoid") -> Calibration:
    """Fit ``method`` on held-out (raw score, 0/1 label) pairs; both classes are needed."""
    scores = np.asarray(raw, dtype=float)
    targets = np.asarray(labels, dtype=int)
    if scores.shape != targets.shape or scores.ndim != 1:
        raise ValueError("calibration needs one label per score")
    if set(np.unique(targets).tolist()) != {0, 1}:
        raise ValueError("calibration needs examples of both classes")
    if method == "sigmoid":
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=1e6, max_iter=1000)
        model.fit(_logit(scores)[:, None], targets)
        return Calibration(
            "sigmoid",
            coefficient=float(model.coef_[0, 0]),
            intercept=float(model.intercept_[0]),
            examples=len(scores),
        )
    from sklearn.isotonic import IsotonicRegression

    model = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip", increasing=True)
    model.fit(scores, targets)
    return Calibration(
        "isotonic",
        x=tuple(float(v) for v in model.X_thresholds_),
        y=tuple(float(v) for v in model.y_thresholds_),
        examples=len(scores),
    )


def expected_calibration_error(
    probabilities: Sequence[float], labels: Sequence[int], bins: int = 10
) -> float:
    """Mean |accuracy − confidence| over equal-width probability bins, weighted by bin size."""
    p = np.asarray(probabilities, dtype=float)
    y = np.asarray(labels, dtype=float)
    which = np.minimum((p * bins).astype(int), bins - 1)
    error = 0.0
    for b in range(bins):
        members = which == b
        if members.any():
            error += members.mean() * abs(y[members].mean() - p[members].mean())
    return float(error)


def calibration_report(probabilities: Sequence[float], labels: Sequence[int]) -> dict:
    """ROC-AUC (null with one class), Brier score, log loss and ECE, rounded for metrics files."""
    from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

    p = np.clip(np.asarray(probabilities, dtype=float), _EPSILON, 1 - _EPSILON)
    y = np.asarray(labels, dtype=int)
    both = len(set(y.tolist())) == 2
    return {
        "examples": int(len(y)),
        "positives": int(y.sum()),
        "roc_auc": round(float(roc_auc_score(y, p)), 4) if both else None,
        "brier": round(float(brier_score_loss(y, p)), 4),
        "log_loss": round(float(log_loss(y, p, labels=[0, 1])), 4),
        "ece": round(expected_calibration_error(p, y), 4),
    }
