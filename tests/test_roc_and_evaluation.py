"""ROC-AUC and bootstrap on known inputs, the zero-shot scorer, and the evaluation: models beside
baselines, paired tests between several classifiers, verdicts, per-example score tables."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

from scicon.backbones.base import YesNo
from scicon.errors import ParamsError
from scicon.evaluate.ngrams import ngram_set, overlap
from scicon.evaluate.params import EvaluateParams
from scicon.evaluate.roc import auc_with_interval, paired_auc_test, rank_auc, roc_points, stratified_resamples
from scicon.evaluate.run import ZERO_SHOT, ModelScorer, build_baselines, evaluate_benchmarks
from scicon.evaluate.zero_shot import zero_shot_scores
from scicon.goal.llm import LlmContradictionScorer
from scicon.readers.sets import Skipped
from scicon.records.benchmark import Benchmark, BenchmarkPair
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

    def yes_no(self, prompts, kind=None):
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
        "benchmarks": {"unused": {"kind": "jsonl", "path": "x", "options": {}}},
        "batch_size": 8,
        "bootstrap_resamples": 200,
        "confidence_level": 0.95,
        "ngram_sizes": (3, 5),
        "seed": 0,
    } | overrides
    return section("evaluate", EvaluateParams, **values)


def demo_benchmark(n=40) -> Benchmark:
    """Every third pair's hypothesis is negated, and exactly those are contradictions."""
    pairs = []
    for i in range(n):
        negated = i % 3 == 0
        second = f"Drug {i} does not lower pressure." if negated else f"Drug {i} lowers pressure."
        pairs.append(
            BenchmarkPair(f"Drug {i} lowers pressure.", second, int(negated), f"f:{i}", f"g{i // 2}")
        )
    return Benchmark("demo", "jsonl", "f", pairs)


def negation_model(name: str, hit: float = 0.8, miss: float = 0.3) -> ModelScorer:
    return ModelScorer(name, lambda pairs: [hit if "not" in b else miss for _, b in pairs])


def cueless_benchmark(n=120) -> Benchmark:
    """Labels no trivial baseline can see: every pair looks alike."""
    pairs = [BenchmarkPair(f"Premise {i}.", f"Claim {i}.", int(i % 3 == 0), f"f:{i}") for i in range(n)]
    return Benchmark("cueless", "jsonl", "f", pairs)


def noisy_model(name: str, seed: int, separation: float, benchmark: Benchmark) -> ModelScorer:
    """A model that knows the label, blurred by seeded noise: its AUC falls as the noise grows."""
    truth = {(p.sentence1, p.sentence2): p.label for p in benchmark.pairs}

    def score(pairs):
        rng = np.random.default_rng(seed)
        return [separation * truth[pair] + rng.normal() for pair in pairs]

    return ModelScorer(name, score)


def test_the_zero_shot_teacher_is_the_llm_goal_on_the_backbone_section(monkeypatch):
    from scicon.backbones.cache import CachedBackbone
    from scicon.backbones.params import BackboneParams
    from scicon.evaluate import zero_shot
    from tests.scripted_backend import ScriptedBackend

    loaded = []

    def load(params):
        loaded.append(params)
        return CachedBackbone(ScriptedBackend(yes=lambda prompt: 0.9 if " not " in prompt else 0.2))

    monkeypatch.setattr(zero_shot, "load_backbone", load)
    backbone = section("backbone", BackboneParams)
    teacher, context = zero_shot.zero_shot_teacher(backbone, seed=1)
    try:
        assert isinstance(teacher, LlmContradictionScorer) and teacher.min_mass == 0.0
        assert loaded == [backbone]  # the backbone section itself, no evolve override
        assert zero_shot_scores(teacher, [("A works.", "A does not work.")]) == [pytest.approx(0.9)]
    finally:
        context.close()


def zero_shot_model(scorer) -> ModelScorer:
    teacher = LlmContradictionScorer(scorer)
    return ModelScorer(ZERO_SHOT, lambda pairs: zero_shot_scores(teacher, pairs, batch_size=8))


CHEAP_BASELINES = {"negation_cue": {}, "overlap": {}}


def test_evaluation_reports_models_baselines_paired_tests_and_skips():
    benchmarks = {
        "demo": demo_benchmark(),
        "mednli": Skipped("mednli", "mednli", "data/mli.jsonl", "file not found: data/mli.jsonl"),
    }
    evaluation = evaluate_benchmarks(
        benchmarks,
        evaluate_params(),
        [negation_model("scicon"), zero_shot_model(KeywordScorer())],
        build_baselines(CHEAP_BASELINES, seed=0),
        ["Drug 1 lowers pressure in adults.", "Drug 0 does not lower pressure."],
    )
    metrics = evaluation.metrics
    assert metrics["mednli"] == {
        "status": "skipped",
        "kind": "mednli",
        "reason": "file not found: data/mli.jsonl",
    }
    demo = metrics["demo"]
    assert demo["status"] == "evaluated" and demo["examples"] == 40 and demo["contradictions"] == 14
    scicon = demo["models"]["scicon"]
    assert scicon["roc_auc"] == 1.0 and demo["models"]["zero_shot"]["roc_auc"] == 1.0
    assert scicon["roc_auc_ci_low"] <= scicon["roc_auc"] <= scicon["roc_auc_ci_high"]
    assert 0 < scicon["brier"] < 0.25 and 0 <= scicon["ece"] <= 1
    # the negation cue separates this benchmark perfectly too; word overlap is reported both ways
    assert set(demo["baselines"]) == {"negation_cue", "overlap", "overlap_negated"}
    assert demo["baselines"]["overlap"]["roc_auc"] == pytest.approx(
        1 - demo["baselines"]["overlap_negated"]["roc_auc"], abs=1e-3
    )
    assert demo["best_baseline"] == "negation_cue" and demo["best_baseline_roc_auc"] == 1.0
    assert set(demo["paired"]) == {
        "scicon_vs_zero_shot",
        "scicon_vs_best_baseline",
        "zero_shot_vs_best_baseline",
    }
    assert demo["paired"]["scicon_vs_zero_shot"]["p_value"] == 1.0
    # a tie with a trivial baseline is not a win
    assert demo["baseline_beats_scicon"] is True and demo["baseline_beats_zero_shot"] is True
    assert demo["verdict"].startswith(
        "trivial baseline negation_cue (1.000) scores at least as high as scicon"
    )
    assert metrics["baseline_wins"] == {"scicon": 1, "zero_shot": 1}
    # SciCon train holds 6 of the benchmark's 110 distinct 3-grams and 2 of its 28 distinct 5-grams
    assert demo["ngram3_overlap"] == round(6 / 110, 4) and demo["ngram5_overlap"] == round(2 / 28, 4)
    assert metrics["benchmarks_evaluated"] == 1 and metrics["benchmarks_skipped"] == 1
    assert set(evaluation.curves) == {"demo.scicon", "demo.zero_shot", "demo.best_baseline"}


def test_several_classifiers_are_compared_pair_by_pair_on_the_same_examples():
    benchmark = cueless_benchmark()
    models = [
        noisy_model("strong", 1, 3.0, benchmark),
        noisy_model("weak", 2, 0.5, benchmark),
        noisy_model("chance", 3, 0.0, benchmark),
    ]
    evaluation = evaluate_benchmarks(
        {"demo": benchmark}, evaluate_params(), models, build_baselines({"overlap": {}}, seed=0), []
    )
    demo = evaluation.metrics["demo"]
    assert list(demo["paired"]) == [
        "strong_vs_weak",
        "strong_vs_chance",
        "weak_vs_chance",
        "strong_vs_best_baseline",
        "weak_vs_best_baseline",
        "chance_vs_best_baseline",
    ]
    table = evaluation.scores["demo"]
    assert table.keys == [p.key for p in benchmark.pairs] and table.labels == benchmark.labels
    # each test is the paired bootstrap on the very scores in the table
    direct = paired_auc_test(
        table.labels, table.columns["strong"], table.columns["weak"], resamples=200, confidence=0.95, seed=0
    )
    strong_vs_weak = demo["paired"]["strong_vs_weak"]
    assert strong_vs_weak["roc_auc_difference"] == round(direct.difference, 4) > 0
    assert strong_vs_weak["p_value"] == round(direct.p_value, 4) < 0.05
    assert all(t["p_value_holm"] >= t["p_value"] for t in demo["paired"].values())
    assert demo["models"]["strong"]["roc_auc"] > demo["models"]["weak"]["roc_auc"]
    assert demo["best_baseline_roc_auc"] == 0.5 and demo["baseline_beats_strong"] is False
    assert demo["verdict"].startswith("strong (0.9")
    assert "above overlap (0.500), significantly (p=" in demo["verdict"]


def test_the_score_table_has_one_column_per_scorer():
    evaluation = evaluate_benchmarks(
        {"demo": demo_benchmark(6)},
        evaluate_params(),
        [negation_model("scicon")],
        build_baselines(CHEAP_BASELINES, seed=0),
        [],
    )
    rows = evaluation.scores["demo"].rows()
    assert list(rows[0]) == ["key", "label", "scicon", "negation_cue", "overlap", "overlap_negated"]
    assert rows[0] == {
        "key": "f:0",
        "label": 1,
        "scicon": 0.8,
        "negation_cue": 1.0,
        "overlap": 0.5,  # {drug, 0, lowers, pressure} vs {drug, 0, does, lower, pressure}
        "overlap_negated": -0.5,
    }


def test_a_baseline_that_cannot_score_is_reported_not_zeroed():
    one_group = Benchmark(
        "one", "jsonl", "f", [BenchmarkPair("a", f"b {i}", i % 2, str(i), group="all") for i in range(6)]
    )
    evaluation = evaluate_benchmarks(
        {"one": one_group},
        evaluate_params(),
        [negation_model("scicon")],
        build_baselines({"hypothesis_only": {"folds": 3}}, seed=0),
        [],
    )
    entry = evaluation.metrics["one"]
    assert entry["baselines"]["hypothesis_only"]["status"] == "unavailable"
    assert "best_baseline" not in entry and "verdict" not in entry and list(entry["paired"]) == []


def test_model_and_baseline_names_must_not_collide():
    with pytest.raises(ParamsError, match=r"evaluate\.classifiers\.overlap_negated: the name is taken"):
        evaluate_benchmarks(
            {},
            evaluate_params(),
            [negation_model("overlap_negated")],
            build_baselines({"overlap": {}}, 0),
            [],
        )


def test_reserved_scorer_names_are_refused_in_params():
    with pytest.raises(ValueError, match="'zero_shot' names another scorer"):
        evaluate_params(classifiers={"zero_shot": "models/x"})


def test_without_models_only_baselines_are_reported():
    evaluation = evaluate_benchmarks(
        {"demo": demo_benchmark()}, evaluate_params(), [], build_baselines(CHEAP_BASELINES, seed=0), []
    )
    assert evaluation.metrics["demo"]["models"] == {}
    assert evaluation.metrics["demo"]["verdict"] == "no model evaluated; best baseline negation_cue"


def test_max_examples_samples_the_same_pairs_for_every_scorer():
    seen = []

    def score(pairs):
        seen.append(list(pairs))
        return [float("not" in b) for _, b in pairs]

    scorer = KeywordScorer()
    evaluation = evaluate_benchmarks(
        {"demo": demo_benchmark(90)},
        evaluate_params(max_examples=30),
        [ModelScorer("scicon", score), zero_shot_model(scorer)],
        build_baselines(CHEAP_BASELINES, seed=0),
        [],
    )
    assert len(seen[0]) == 30 and len(scorer.prompts) == 30
    assert all(f"sentence2: {b}" in prompt for (_, b), prompt in zip(seen[0], scorer.prompts, strict=True))
    assert len(evaluation.scores["demo"].keys) == 30
