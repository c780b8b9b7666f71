"""How well a judge separates true contradictions, on labelled pairs that say how they were made.

The gold set's pairs carry facets (source, operator, kind). A judge's P(contradiction) is
scored against the gold label:

- ``overall``: ROC-AUC of contradiction vs not over every pair;
- ``within_rule_negatives``: the same among the rule-edited pairs only (facet ``source``
  equal to ``negatives_source``): the question EvoNLI puts to its teacher, which edited
  sentence really contradicts the evidence. "Is a rule negative" is constant there, so a
  judge that only spots edits scores 0.5;
- ``at_target``: the pairs the search would accept (probability ≥ ``target``): their
  share, the precision among them and the recall of true contradictions;
- ``by_source`` and ``by_operator``: per stratum, its pairs, true contradictions, mean
  probability and share accepted, and the precision among the accepted;
- where the pairs record the mutation type of their edit (the project's judgements do):
  ``within_edits`` — ROC-AUC among the edits that are negations and among the rest, the
  question behind the share of non-negation contradictions EvoNLI accepts — and, at
  ``target``, ``by_mutation_type``.

Intervals are bootstrap percentile intervals: stratified by class for ROC-AUC (as every
ROC-AUC in the evaluate stage), and plain resamples of the pairs for precision, recall
and acceptance. Scores that are not probabilities (the trivial baselines) get the two
ROC-AUC figures only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scicon.annotation.intervals import percentile_interval
from scicon.evaluate.roc import auc_with_interval
from scicon.params import meets_threshold
from scicon.records.benchmark import BenchmarkPair

GOLD = "gold"  # the name gold pairs go by in the teacher's and the evaluate stage's metrics
RULE_NEGATIVES = "rule_cross"


def _round(value: float | None) -> float | None:
    return None if value is None else round(float(value), 4)


def auc_figures(labels: np.ndarray, scores: np.ndarray, resamples: int, confidence: float, seed: int) -> dict:
    if len(set(labels.tolist())) < 2:
        return {"examples": int(labels.size), "contradictions": int(labels.sum()), "roc_auc": None}
    estimate = auc_with_interval(labels, scores, resamples=resamples, confidence=confidence, seed=seed)
    return {
        "examples": int(labels.size),
        "contradictions": int(labels.sum()),
        "roc_auc": _round(estimate.auc),
        "roc_auc_ci_low": _round(estimate.ci_low),
        "roc_auc_ci_high": _round(estimate.ci_high),
    }


def _rates(labels: np.ndarray, accepted: np.ndarray) -> tuple[float, float | None, float | None]:
    """Acceptance rate, precision among the accepted, recall of the contradictions."""
    share = float(accepted.mean())
    precision = float(labels[accepted].mean()) if accepted.any() else None
    recall = float(accepted[labels == 1].mean()) if (labels == 1).any() else None
    return share, precision, recall


def _at_target(
    labels: np.ndarray, probabilities: np.ndarray, target: float, resamples: int, confidence: float, seed: int
) -> dict:
    accepted = meets_threshold(probabilities, target)
    share, precision, recall = _rates(labels, accepted)
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, labels.size, size=(resamples, labels.size))
    samples = np.array([_rates(labels[i], accepted[i]) for i in drawn], dtype=float)

    def interval(column: int) -> tuple[float | None, float | None]:
        bounds = percentile_interval(samples[:, column], confidence)
        return (_round(bounds[0]), _round(bounds[1])) if bounds else (None, None)

    figures = {"target": target, "accepted": int(accepted.sum())}
    for column, (name, value) in enumerate(
        (("acceptance", share), ("precision", precision), ("recall", recall))
    ):
        low, high = interval(column)
        figures |= {name: _round(value), f"{name}_ci_low": low, f"{name}_ci_high": high}
    return figures


def _strata(
    pairs: Sequence[BenchmarkPair], labels: np.ndarray, probabilities: np.ndarray, facet: str, target: float
) -> dict[str, dict]:
    values = np.array([pair.facet(facet) or "" for pair in pairs])
    strata = {}
    for value in sorted(set(values.tolist()) - {""}):
        members = values == value
        accepted = meets_threshold(probabilities[members], target)
        mine = labels[members]
        strata[value] = {
            "examples": int(members.sum()),
            "contradictions": int(mine.sum()),
            "mean_probability": _round(probabilities[members].mean()),
            "acceptance": _round(accepted.mean()),
            "precision": _round(mine[accepted].mean()) if accepted.any() else None,
        }
    return strata


def judge_figures(
    pairs: Sequence[BenchmarkPair],
    scores: Sequence[float],
    *,
    target: float | None,
    resamples: int,
    confidence: float,
    seed: int,
    negatives_source: str = RULE_NEGATIVES,
) -> dict:
    """The figures above; ``target`` None for scores that are not probabilities."""
    labels = np.array([pair.label for pair in pairs], dtype=int)
    values = np.asarray(scores, dtype=float)
    if values.shape != labels.shape:
        raise ValueError(f"{values.size} scores for {labels.size} pairs")
    negatives = np.array([pair.facet("source") == negatives_source for pair in pairs], dtype=bool)
    figures = {
        "overall": auc_figures(labels, values, resamples, confidence, seed),
        "within_rule_negatives": auc_figures(
            labels[negatives], values[negatives], resamples, confidence, seed
        ),
    }
    types = np.array([pair.facet("mutation_type") or "" for pair in pairs])
    typed = types != ""
    if typed.any():
        from scicon.dataset.taxonomy import NEGATION_POLARITY  # start-up: scicon.dataset +0.8 s CPU

        negation = types == NEGATION_POLARITY
        other_edits = typed & ~negation
        figures["within_edits"] = {
            "negation": auc_figures(labels[negation], values[negation], resamples, confidence, seed),
            "not_negation": auc_figures(
                labels[other_edits], values[other_edits], resamples, confidence, seed
            ),
        }
    if target is not None:
        figures["at_target"] = _at_target(labels, values, target, resamples, confidence, seed)
        figures["by_source"] = _strata(pairs, labels, values, "source", target)
        figures["by_operator"] = _strata(pairs, labels, values, "operator", target)
        if typed.any():
            figures["by_mutation_type"] = _strata(pairs, labels, values, "mutation_type", target)
    return figures


def has_facets(pairs: Sequence[BenchmarkPair]) -> bool:
    """Whether the pairs say how they were made (so judge figures can be broken down)."""
    return any(pair.facet("source") for pair in pairs)
