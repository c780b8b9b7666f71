"""Score every benchmark with every model and every trivial baseline, and compare them honestly.

Per evaluated benchmark the metrics hold, on the same (possibly sampled) pairs:

- ``models``: each classifier folder of ``evaluate.classifiers`` and the zero-shot
  backbone — ROC-AUC with its stratified-bootstrap interval, and the Brier score and
  expected calibration error of its probabilities;
- ``baselines``: each trivial baseline of ``evaluate.baselines`` (both directions of
  the two-sided ones) — ROC-AUC with its interval;
- ``best_baseline`` and its ROC-AUC. It is picked after seeing the labels, among
  every baseline and direction: an optimistic baseline, so a model that beats it has
  beaten the strongest trivial rival, not a convenient one;
- ``paired``: the paired bootstrap test of every two models (section 5.2's
  comparison), and of each model against the best baseline, with Holm-adjusted
  p-values over the benchmark's tests;
- ``baseline_beats_<model>`` (the best baseline's ROC-AUC is at least the model's)
  and a ``verdict`` sentence saying which trivial baseline wins, or whether each model's
  lead over it is significant;
- the n-gram overlap with SciCon train (the paper's contamination check).

Skipped benchmarks carry ``status: skipped`` and the reason, and no scores at all.
Per-example scores of every scorer go to a table per benchmark (key, label, one
column per scorer), so later runs can be compared pair by pair.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from scicon.calibration import calibration_report
from scicon.classifier import ContradictionClassifier
from scicon.errors import ParamsError
from scicon.evaluate.baselines import BASELINES, BaselineUnavailable
from scicon.evaluate.judge import has_facets, judge_figures
from scicon.evaluate.ngrams import ngram_set, overlap
from scicon.evaluate.params import EvaluateParams
from scicon.evaluate.roc import auc_with_interval, paired_auc_test, roc_points
from scicon.readers.sets import Skipped
from scicon.records.benchmark import Benchmark, BenchmarkPair
from scicon.sampling import seeded_sample

log = logging.getLogger(__name__)

SentencePair = tuple[str, str]
SIGNIFICANCE_TEST = "paired_stratified_bootstrap"
BEST_BASELINE = "best_baseline"
NEGATED = "_negated"
ZERO_SHOT = "zero_shot"


@dataclass(frozen=True)
class ModelScorer:
    """A model under evaluation: its raw P(contradiction), and the map to its reported probability."""

    name: str
    score: Callable[[Sequence[SentencePair]], list[float]]
    calibrate: Callable[[Sequence[float]], list[float]] | None = None


@dataclass(frozen=True)
class Baseline:
    name: str
    score: Callable[[Sequence[BenchmarkPair]], list[float]]
    two_sided: bool


@dataclass
class ScoreTable:
    """Per-example scores of one benchmark: stable keys, labels, one column per scorer."""

    keys: list[str]
    labels: list[int]
    columns: dict[str, list[float]] = field(default_factory=dict)

    def rows(self, digits: int = 6) -> list[dict]:
        return [
            {
                "key": key,
                "label": label,
                **{name: round(values[i], digits) for name, values in self.columns.items()},
            }
            for i, (key, label) in enumerate(zip(self.keys, self.labels, strict=True))
        ]


@dataclass
class Evaluation:
    metrics: dict
    curves: dict[str, list[dict]] = field(default_factory=dict)  # "<benchmark>.<scorer>" -> ROC points
    scores: dict[str, ScoreTable] = field(default_factory=dict)


def build_baselines(settings: Mapping[str, dict | None], seed: int) -> list[Baseline]:
    """The baselines named in ``evaluate.baselines``, each from its registry entry and settings."""
    baselines = []
    for name, values in settings.items():
        key = f"evaluate.baselines.{name}"
        entry = BASELINES.get(name, key=key)
        parsed = entry.validate_settings(values, key)
        baselines.append(Baseline(name, entry.factory(parsed, seed), entry.facts.two_sided))
    return baselines


def classifier_scorers(classifiers: Mapping[str, str], batch_size: int) -> list[ModelScorer]:
    """One scorer per folder of ``evaluate.classifiers``, raw P(contradiction) with its calibration."""
    scorers = []
    for name, folder in classifiers.items():
        if not Path(folder).is_dir():
            raise ParamsError(f"evaluate.classifiers.{name}: classifier folder not found: {folder}")
        classifier = ContradictionClassifier(folder, batch_size=batch_size)

        def score(pairs, classifier=classifier, name=name):
            return classifier.raw_contradiction_probabilities(pairs, progress=name)

        scorers.append(ModelScorer(name, score, classifier.calibrate))
    return scorers


def check_scorer_names(models: Sequence[ModelScorer], baselines: Sequence[Baseline]) -> None:
    """Every scorer is a column and a metrics key: names must not collide."""
    taken = {BEST_BASELINE}
    for baseline in baselines:
        taken |= {baseline.name, baseline.name + NEGATED} if baseline.two_sided else {baseline.name}
    for model in models:
        if model.name in taken:
            raise ParamsError(
                f"evaluate.classifiers.{model.name}: the name is taken by a baseline or the zero-shot model"
            )
        taken.add(model.name)


def _round(value: float) -> float:
    return round(float(value), 4)


def evaluate_benchmarks(
    benchmarks: Mapping[str, Benchmark | Skipped],
    params: EvaluateParams,
    models: Sequence[ModelScorer],
    baselines: Sequence[Baseline],
    scicon_train_texts: Sequence[str],
    judge: JudgeSettings | None = None,
) -> Evaluation:
    check_scorer_names(models, baselines)
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
        # the same seeded sample for every scorer, in file order
        pairs = seeded_sample(benchmark.pairs, params.max_examples, params.seed)
        labels = [pair.label for pair in pairs]
        if len(set(labels)) < 2:
            reason = f"the sample of {len(pairs)} pairs lacks one class"
            evaluation.metrics[name] = {"status": "skipped", "kind": benchmark.kind, "reason": reason}
            log.warning("evaluate: skipping %s: %s", name, reason)
            continue
        log.info("evaluate: %s: scoring %d pairs", name, len(pairs))
        table, unavailable = _score(name, pairs, models, baselines)
        evaluation.scores[name] = table
        entry, best = _benchmark_metrics(benchmark, table, models, unavailable, params)
        if judge is not None and has_facets(pairs):
            entry["judge"] = _judge_entry(pairs, table, models, judge)
        texts = [text for pair in pairs for text in (pair.sentence1, pair.sentence2)]
        for n, reference in references.items():
            entry[f"ngram{n}_overlap"] = _round(overlap(texts, reference, n))
        evaluation.metrics[name] = entry
        for model in models:
            evaluation.curves[f"{name}.{model.name}"] = roc_points(labels, table.columns[model.name])
        if best is not None:
            evaluation.curves[f"{name}.{BEST_BASELINE}"] = roc_points(labels, table.columns[best])
    entries = [entry for entry in evaluation.metrics.values()]
    statuses = [entry["status"] for entry in entries]
    evaluation.metrics = {
        "benchmarks_evaluated": statuses.count("evaluated"),
        "benchmarks_skipped": statuses.count("skipped"),
        "bootstrap_resamples": params.bootstrap_resamples,
        "confidence_level": params.confidence_level,
        "significance_test": SIGNIFICANCE_TEST,
        "baseline_wins": {
            model.name: sum(bool(entry.get(f"baseline_beats_{model.name}")) for entry in entries)
            for model in models
        },
        **evaluation.metrics,
    }
    return evaluation


def _score(
    name: str, pairs: list[BenchmarkPair], models: Sequence[ModelScorer], baselines: Sequence[Baseline]
) -> tuple[ScoreTable, dict[str, str]]:
    table = ScoreTable(keys=[p.key for p in pairs], labels=[p.label for p in pairs])
    texts = [(p.sentence1, p.sentence2) for p in pairs]
    for model in models:
        scores = [float(s) for s in model.score(texts)]
        if len(scores) != len(pairs):
            raise RuntimeError(f"{model.name} returned {len(scores)} scores for {len(pairs)} pairs")
        table.columns[model.name] = scores
    unavailable: dict[str, str] = {}
    for baseline in baselines:
        try:
            scores = [float(s) for s in baseline.score(pairs)]
        except BaselineUnavailable as why:
            log.warning("evaluate: %s: baseline %s unavailable: %s", name, baseline.name, why)
            unavailable[baseline.name] = str(why)
            continue
        table.columns[baseline.name] = scores
        if baseline.two_sided:
            table.columns[baseline.name + NEGATED] = [0.0 - s for s in scores]  # 0.0, not -0.0
    return table, unavailable


@dataclass(frozen=True)
class JudgeSettings:
    """What the gold figures of a benchmark whose pairs carry facets need (docs/judge.md)."""

    target: float
    resamples: int
    confidence: float
    seed: int


def _judge_entry(
    pairs: Sequence[BenchmarkPair], table: ScoreTable, models: Sequence[ModelScorer], judge: JudgeSettings
) -> dict:
    """Every scorer judged: models on the probability ``target`` thresholds (calibrated where the
    model is), baselines on ROC-AUC only (their scores are not probabilities)."""
    resampling = {"resamples": judge.resamples, "confidence": judge.confidence, "seed": judge.seed}
    figures = {}
    for model in models:
        raw = table.columns[model.name]
        probabilities = model.calibrate(raw) if model.calibrate else raw
        figures[model.name] = judge_figures(pairs, probabilities, target=judge.target, **resampling)
    model_names = {model.name for model in models}
    for column, scores in table.columns.items():
        if column not in model_names:
            figures[column] = judge_figures(pairs, scores, target=None, **resampling)
    return figures


def _auc_entry(labels, scores, resampling) -> dict:
    estimate = auc_with_interval(labels, scores, **resampling)
    return {
        "roc_auc": _round(estimate.auc),
        "roc_auc_ci_low": _round(estimate.ci_low),
        "roc_auc_ci_high": _round(estimate.ci_high),
    }


def _benchmark_metrics(
    benchmark: Benchmark,
    table: ScoreTable,
    models: Sequence[ModelScorer],
    unavailable: Mapping[str, str],
    params: EvaluateParams,
) -> tuple[dict, str | None]:
    from statsmodels.stats.multitest import multipletests

    labels = table.labels
    resampling = {
        "resamples": params.bootstrap_resamples,
        "confidence": params.confidence_level,
        "seed": params.seed,
    }
    model_names = [model.name for model in models]
    entry: dict = {
        "status": "evaluated",
        "kind": benchmark.kind,
        "examples": len(labels),
        "contradictions": int(sum(labels)),
        "contradiction_fraction": _round(sum(labels) / len(labels)),
        "models": {},
        "baselines": {},
    }
    for model in models:
        raw = table.columns[model.name]
        probabilities = model.calibrate(raw) if model.calibrate else raw
        quality = calibration_report(probabilities, labels)
        entry["models"][model.name] = _auc_entry(labels, raw, resampling) | {
            "brier": quality["brier"],
            "ece": quality["ece"],
        }
    baseline_names = [column for column in table.columns if column not in model_names]
    for baseline in baseline_names:
        entry["baselines"][baseline] = _auc_entry(labels, table.columns[baseline], resampling)
    for baseline, reason in unavailable.items():
        entry["baselines"][baseline] = {"status": "unavailable", "reason": reason}

    best = max(baseline_names, key=lambda b: entry["baselines"][b]["roc_auc"], default=None)
    comparisons = [(a, b, a, b) for a, b in itertools.combinations(model_names, 2)]
    if best is not None:
        entry[BEST_BASELINE] = best
        entry["best_baseline_roc_auc"] = entry["baselines"][best]["roc_auc"]
        comparisons += [(model, BEST_BASELINE, model, best) for model in model_names]
    tests = {
        f"{a}_vs_{b}": paired_auc_test(labels, table.columns[a_column], table.columns[b_column], **resampling)
        for a, b, a_column, b_column in comparisons
    }
    adjusted = multipletests([t.p_value for t in tests.values()], method="holm")[1] if tests else []
    entry["paired"] = {
        key: {
            "roc_auc_difference": _round(test.difference),
            "ci_low": _round(test.ci_low),
            "ci_high": _round(test.ci_high),
            "p_value": _round(test.p_value),
            "p_value_holm": _round(holm),
        }
        for (key, test), holm in zip(tests.items(), adjusted, strict=True)
    }
    if best is not None:
        alpha = 1.0 - params.confidence_level
        sentences = []
        for model in model_names:
            beaten = entry["baselines"][best]["roc_auc"] >= entry["models"][model]["roc_auc"]
            entry[f"baseline_beats_{model}"] = beaten
            sentences.append(_verdict(model, best, entry, alpha))
        entry["verdict"] = "; ".join(sentences) if sentences else f"no model evaluated; best baseline {best}"
    return entry, best


def _verdict(model: str, best: str, entry: dict, alpha: float) -> str:
    model_auc = entry["models"][model]["roc_auc"]
    baseline_auc = entry["baselines"][best]["roc_auc"]
    if baseline_auc >= model_auc:
        baseline = f"trivial baseline {best} ({baseline_auc:.3f})"
        return f"{baseline} scores at least as high as {model} ({model_auc:.3f})"
    p_value = entry["paired"][f"{model}_vs_{BEST_BASELINE}"]["p_value"]
    significance = "significantly" if p_value < alpha else "not significantly"
    return f"{model} ({model_auc:.3f}) above {best} ({baseline_auc:.3f}), {significance} (p={p_value:.3g})"
