"""Score every benchmark with the fine-tuned classifier (and the zero-shot backbone) and compare.

For each evaluated benchmark the metrics hold the fine-tuned ROC-AUC with its
bootstrap interval, the zero-shot ROC-AUC with its interval, the paired bootstrap
test of their difference, and the n-gram overlap with SciCon's training split.
Skipped benchmarks carry ``status: skipped`` and the reason, and no scores at all.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from scicon.evaluate.benchmarks import Benchmark, BenchmarkPair, Skipped
from scicon.evaluate.ngrams import ngram_set, overlap
from scicon.evaluate.params import EvaluateParams
from scicon.evaluate.roc import auc_with_interval, paired_auc_test, roc_points
from scicon.evaluate.zero_shot import zero_shot_scores
from scicon.goal.base import ContradictionScorer

log = logging.getLogger(__name__)

PairScorer = Callable[[Sequence[tuple[str, str]]], list[float]]

SIGNIFICANCE_TEST = "paired_stratified_bootstrap"


@dataclass
class Evaluation:
    metrics: dict
    curves: dict[str, list[dict]] = field(default_factory=dict)  # "<benchmark>.<model>" -> ROC points
    scores: dict[str, dict[str, list[float]]] = field(default_factory=dict)


def sample_pairs(pairs: Sequence[BenchmarkPair], limit: int | None, seed: int) -> list[BenchmarkPair]:
    """At most ``limit`` pairs, a seeded sample that keeps file order (the same for every model)."""
    if limit is None or len(pairs) <= limit:
        return list(pairs)
    keep = np.sort(np.random.default_rng(seed).choice(len(pairs), size=limit, replace=False))
    return [pairs[i] for i in keep]


def _round(value: float) -> float:
    return round(float(value), 4)


def evaluate_benchmarks(
    benchmarks: Mapping[str, Benchmark | Skipped],
    params: EvaluateParams,
    finetuned: PairScorer,
    zero_shot: ContradictionScorer | None,
    scicon_train_texts: Sequence[str],
) -> Evaluation:
    references = {n: ngram_set(scicon_train_texts, n) for n in params.ngram_sizes}
    evaluation = Evaluation(metrics={})
    for name, benchmark in benchmarks.items():
        if isinstance(benchmark, Skipped):
            evaluation.metrics[name] = {
                "status": "skipped",
                "kind": benchmark.kind,
                "reason": benchmark.reason,
            }
            continue
        pairs = sample_pairs(benchmark.pairs, params.max_examples, params.seed)
        labels = [pair.label for pair in pairs]
        if len(set(labels)) < 2:
            reason = f"the sample of {len(pairs)} pairs lacks one class"
            evaluation.metrics[name] = {"status": "skipped", "kind": benchmark.kind, "reason": reason}
            log.warning("evaluate: skipping %s: %s", name, reason)
            continue
        texts = [(pair.sentence1, pair.sentence2) for pair in pairs]
        log.info("evaluate: %s: scoring %d pairs", name, len(pairs))
        scores = {"finetuned": finetuned(texts)}
        if zero_shot is not None:
            scores["zero_shot"] = zero_shot_scores(
                zero_shot, texts, params.batch_size, label=f"{name} zero-shot"
            )
        evaluation.scores[name] = scores
        evaluation.metrics[name] = _benchmark_metrics(benchmark, pairs, labels, scores, params, references)
        for model, model_scores in scores.items():
            evaluation.curves[f"{name}.{model}"] = roc_points(labels, model_scores)
    statuses = [entry["status"] for entry in evaluation.metrics.values()]
    evaluation.metrics = {
        "benchmarks_evaluated": statuses.count("evaluated"),
        "benchmarks_skipped": statuses.count("skipped"),
        "bootstrap_resamples": params.bootstrap_resamples,
        "confidence_level": params.confidence_level,
        "significance_test": SIGNIFICANCE_TEST if zero_shot is not None else "none",
        **evaluation.metrics,
    }
    return evaluation


def _benchmark_metrics(
    benchmark: Benchmark,
    pairs: Sequence[BenchmarkPair],
    labels: Sequence[int],
    scores: Mapping[str, list[float]],
    params: EvaluateParams,
    references: Mapping[int, set],
) -> dict:
    resampling = {
        "resamples": params.bootstrap_resamples,
        "confidence": params.confidence_level,
        "seed": params.seed,
    }
    finetuned = auc_with_interval(labels, scores["finetuned"], **resampling)
    entry = {
        "status": "evaluated",
        "kind": benchmark.kind,
        "examples": len(pairs),
        "contradictions": int(sum(labels)),
        "contradiction_fraction": _round(sum(labels) / len(labels)),
        "roc_auc": _round(finetuned.auc),
        "roc_auc_ci_low": _round(finetuned.ci_low),
        "roc_auc_ci_high": _round(finetuned.ci_high),
    }
    if "zero_shot" in scores:
        zero = auc_with_interval(labels, scores["zero_shot"], **resampling)
        comparison = paired_auc_test(labels, scores["finetuned"], scores["zero_shot"], **resampling)
        entry |= {
            "zero_shot_roc_auc": _round(zero.auc),
            "zero_shot_roc_auc_ci_low": _round(zero.ci_low),
            "zero_shot_roc_auc_ci_high": _round(zero.ci_high),
            "roc_auc_difference": _round(comparison.difference),
            "roc_auc_difference_ci_low": _round(comparison.ci_low),
            "roc_auc_difference_ci_high": _round(comparison.ci_high),
            "p_value": _round(comparison.p_value),
        }
    texts = [text for pair in pairs for text in (pair.sentence1, pair.sentence2)]
    for n, reference in references.items():
        entry[f"ngram{n}_overlap"] = _round(overlap(texts, reference, n))
    return entry
