"""ROC-AUC and bootstrap on known inputs, the zero-shot scorer protocol, and the evaluation record."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

from scicon.backbones.base import YesNo
from scicon.evaluate import Benchmark, BenchmarkPair, Skipped, evaluate_benchmarks
from scicon.evaluate.ngrams import ngram_set, overlap
from scicon.evaluate.params import EvaluateParams
from scicon.evaluate.roc import auc_with_interval, paired_auc_test, rank_auc, roc_points, stratified_resamples
from scicon.evaluate.zero_shot import zero_shot_scores
from scicon.goal.llm import LlmContradictionScorer
from tests.params_defaults import section


def noisy_scores(n=400, separation=1.0, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=n)
    scores = rng.normal(size=n) + separation * labels
    return labels, scores


def test_rank_auc_equals_scikit_learn_with_ties():
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 2, size=300)
    scores = np.round(rng.normal(size=300) + labels, 1)  # many ties
    assert rank_auc(labels, scores) == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    assert rank_auc([0, 1], [0.2, 0.9]) == 1.0
    assert rank_auc([0, 0, 1, 1], [0.5, 0.5, 0.5, 0.5]) == 0.5
    with pytest.raises(ValueError, match="both classes"):
        rank_auc([1, 1], [0.1, 0.2])


def test_every_resample_keeps_class_counts_and_its_auc_matches_scikit_learn():
    labels, scores = noisy_scores(50)
    indices = stratified_resamples(labels, 5, seed=3)
    for row in indices:
        assert labels[row].sum() == labels.sum()
        assert rank_auc(labels[row], scores[row]) == pytest.approx(roc_auc_score(labels[row], scores[row]))


def test_bootstrap_interval_agrees_with_scipy_percentile_bootstrap():
    labels, scores = noisy_scores(600, separation=0.8)
    ours = auc_with_interval(labels, scores, resamples=2000, seed=5)
    assert ours.auc == pytest.approx(roc_auc_score(labels, scores))
    theirs = stats.bootstrap(
        (labels, scores),
        lambda y, s: roc_auc_score(y, s),
        paired=True,
        vectorized=False,
        n_resamples=2000,
        method="percentile",
        random_state=5,
    ).confidence_interval
    assert ours.ci_low < ours.auc < ours.ci_high
    assert ours.ci_low == pytest.approx(theirs.low, abs=0.012)
    assert ours.ci_high == pytest.approx(theirs.high, abs=0.012)


def test_bootstrap_is_seeded():
    labels, scores = noisy_scores(100)
    assert auc_with_interval(labels, scores, seed=1) == auc_with_interval(labels, scores, seed=1)
    assert auc_with_interval(labels, scores, seed=1) != auc_with_interval(labels, scores, seed=2)


def test_paired_test_on_known_inputs():
    labels, good = noisy_scores(400, separation=2.0)
    rng = np.random.default_rng(9)
    chance = rng.normal(size=400)
    strong = paired_auc_test(labels, good, chance, resamples=1000, seed=0)
    assert strong.difference == pytest.approx(roc_auc_score(labels, good) - roc_auc_score(labels, chance))
    assert strong.p_value == pytest.approx(2 / 1001)  # no resample favours chance: the smallest p possible
    assert strong.ci_low > 0

    same = paired_auc_test(labels, good, good, resamples=200, seed=0)
    assert same.difference == 0 and same.p_value == 1.0

    with pytest.raises(ValueError, match="same examples"):
        paired_auc_test(labels, good, chance[:10])


def test_roc_points_span_the_unit_square():
    labels, scores = noisy_scores(50)
    points = roc_points(labels, scores)
    assert points[0]["fpr"] == 0 and points[-1]["fpr"] == 1 and points[-1]["tpr"] == 1


class KeywordScorer:
    """A deterministic stand-in backbone: P(yes) is high when the prompt's sentence2 has a negation."""

    def __init__(self):
        self.prompts = []

    def yes_no(self, prompts):
        self.prompts.extend(prompts)
        return [YesNo(0.9 if " not " in p.split("sentence2: ")[1] else 0.2, mass=1.0) for p in prompts]


def test_zero_shot_uses_the_paper_prompt_and_keeps_order():
    scorer = KeywordScorer()
    pairs = [("A works.", "A does not work."), ("B works.", "B helps."), ("C works.", "C is not useful.")]
    assert zero_shot_scores(LlmContradictionScorer(scorer), pairs, batch_size=2) == [0.9, 0.2, 0.9]
    assert scorer.prompts[0] == (
        "You are a helpful assistant expert in Biomedical domain.\n"
        "We want to detect contradictions between sentences.\n"
        "Determine if the following two sentences are contradictory.\n"
        "Answer with only yes or no.\n"
        "Provide no additional explanation\n"
        "or commentary.\n"
        "sentence1:A works.\n"
        "sentence2: A does not work.\n"
        "Answer:"
    )


def test_ngram_overlap():
    reference = ngram_set(["the drug lowered blood pressure in adults"], 3)
    assert overlap(["The drug lowered blood pressure."], reference, 3) == 1.0
    assert overlap(["The drug lowered blood flow."], reference, 3) == pytest.approx(2 / 3)
    assert overlap(["Two words"], reference, 5) == 0.0


def evaluate_params(**overrides) -> EvaluateParams:
    values = {
        "benchmarks": {"unused": {"kind": "jsonl", "path": "x"}},
        "batch_size": 8,
        "bootstrap_resamples": 200,
        "confidence_level": 0.95,
        "ngram_sizes": (3, 5),
        "seed": 0,
    } | overrides
    return section("evaluate", EvaluateParams, **values)


def demo_benchmark(n=40) -> Benchmark:
    pairs = []
    for i in range(n):
        negated = i % 3 == 0
        second = f"Drug {i} does not lower pressure." if negated else f"Drug {i} lowers pressure."
        pairs.append(BenchmarkPair(f"Drug {i} lowers pressure.", second, int(negated), f"f:{i}"))
    return Benchmark("demo", "jsonl", "f", pairs)


def test_evaluation_reports_scores_intervals_test_and_skips():
    benchmarks = {
        "demo": demo_benchmark(),
        "mednli": Skipped("mednli", "mednli", "data/mli.jsonl", "file not found: data/mli.jsonl"),
    }

    def finetuned(pairs):
        return [0.8 if "not" in b else 0.3 for _, b in pairs]

    evaluation = evaluate_benchmarks(
        benchmarks,
        evaluate_params(),
        finetuned,
        LlmContradictionScorer(KeywordScorer()),
        ["Drug 1 lowers pressure in adults."],
    )
    metrics = evaluation.metrics
    assert metrics["mednli"] == {
        "status": "skipped",
        "kind": "mednli",
        "reason": "file not found: data/mli.jsonl",
    }
    demo = metrics["demo"]
    assert demo["status"] == "evaluated" and demo["examples"] == 40 and demo["contradictions"] == 14
    assert demo["roc_auc"] == 1.0 and demo["zero_shot_roc_auc"] == 1.0
    assert demo["roc_auc_ci_low"] <= demo["roc_auc"] <= demo["roc_auc_ci_high"]
    assert demo["p_value"] == 1.0 and demo["roc_auc_difference"] == 0.0
    assert 0 < demo["ngram3_overlap"] < 1 and demo["ngram5_overlap"] >= 0
    assert metrics["benchmarks_evaluated"] == 1 and metrics["benchmarks_skipped"] == 1
    assert set(evaluation.curves) == {"demo.finetuned", "demo.zero_shot"}
    # flat: one level per benchmark, scalar values only
    assert all(
        not isinstance(v, dict)
        for entry in metrics.values()
        if isinstance(entry, dict)
        for v in entry.values()
    )


def test_without_zero_shot_only_the_finetuned_model_is_reported():
    evaluation = evaluate_benchmarks(
        {"demo": demo_benchmark()}, evaluate_params(), lambda pairs: [0.5] * len(pairs), None, []
    )
    assert "zero_shot_roc_auc" not in evaluation.metrics["demo"]
    assert evaluation.metrics["demo"]["roc_auc"] == 0.5
    assert evaluation.metrics["significance_test"] == "none"


def test_max_examples_samples_the_same_pairs_for_every_model():
    seen = []

    def finetuned(pairs):
        seen.append(list(pairs))
        return [float("not" in b) for _, b in pairs]

    scorer = KeywordScorer()
    evaluate_benchmarks(
        {"demo": demo_benchmark(90)},
        evaluate_params(max_examples=30),
        finetuned,
        LlmContradictionScorer(scorer),
        [],
    )
    assert len(seen[0]) == 30 and len(scorer.prompts) == 30
    assert all(f"sentence2: {b}" in prompt for (_, b), prompt in zip(seen[0], scorer.prompts, strict=True))
