"""Gold figures of a judge, on a fixture whose answers are worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scicon.evaluate.benchmarks import load_benchmarks
from scicon.evaluate.judge import has_facets, judge_figures
from scicon.readers.sets import SetSpec

GOLD = Path(__file__).parent / "fixtures" / "labelled" / "gold" / "gold_dev.jsonl"
# items: original e, original n, rule negation_insert c, rule negation_insert n,
#        rule wordnet_antonym c, rule wordnet_antonym n (garbled), control e, other abstract n
SCORES = [0.1, 0.2, 0.9, 0.5, 0.3, 0.6, 0.1, 0.05]
SETTINGS = {"resamples": 300, "confidence": 0.9, "seed": 3}


@pytest.fixture(scope="module")
def pairs():
    return load_benchmarks({"gold": SetSpec(kind="gold", path=str(GOLD), options=None)})["gold"].pairs


def test_overall_and_within_the_rule_negatives(pairs):
    figures = judge_figures(pairs, SCORES, target=0.4, **SETTINGS)
    # positives 0.9 and 0.3 against six negatives: 6 + 4 of 12 orderings right
    assert figures["overall"]["roc_auc"] == pytest.approx(10 / 12, abs=1e-4)
    assert figures["overall"]["examples"] == 8 and figures["overall"]["contradictions"] == 2
    # among the four rule negatives: 0.9 beats 0.5 and 0.6, 0.3 beats neither
    within = figures["within_rule_negatives"]
    assert within["roc_auc"] == 0.5 and within["examples"] == 4
    assert within["roc_auc_ci_low"] <= 0.5 <= within["roc_auc_ci_high"]


def test_at_target_acceptance_precision_recall_and_strata(pairs):
    figures = judge_figures(pairs, SCORES, target=0.4, **SETTINGS)
    at = figures["at_target"]
    assert (at["accepted"], at["acceptance"], at["precision"], at["recall"]) == (3, 0.375, 0.3333, 0.5)
    assert at["precision_ci_low"] <= at["precision"] <= at["precision_ci_high"]
    assert figures["by_operator"] == {
        "negation_insert": {"examples": 2, "contradictions": 1, "mean_probability": 0.7, "acceptance": 1.0,
                            "precision": 0.5},
        "wordnet_antonym": {"examples": 2, "contradictions": 1, "mean_probability": 0.45, "acceptance": 0.5,
                            "precision": 0.0},
    }  # fmt: skip
    assert figures["by_source"]["original"]["acceptance"] == 0.0
    assert figures["by_source"]["original"]["precision"] is None  # nothing accepted, no precision


def test_scores_that_are_not_probabilities_get_the_roc_figures_only(pairs):
    figures = judge_figures(pairs, [-s for s in SCORES], target=None, **SETTINGS)
    assert set(figures) == {"overall", "within_rule_negatives"}
    assert figures["overall"]["roc_auc"] == pytest.approx(2 / 12, abs=1e-4)


def test_a_constant_judge_is_at_chance_and_a_score_count_mismatch_is_an_error(pairs):
    assert judge_figures(pairs, [0.5] * 8, target=0.4, **SETTINGS)["overall"]["roc_auc"] == 0.5
    with pytest.raises(ValueError, match="7 scores for 8 pairs"):
        judge_figures(pairs, SCORES[:7], target=0.4, **SETTINGS)


def test_only_pairs_that_say_how_they_were_made_get_judge_figures(pairs):
    from scicon.records.benchmark import BenchmarkPair

    assert has_facets(pairs)
    assert not has_facets([BenchmarkPair("a", "b", 1, "k")])


def test_judgements_with_mutation_types_are_judged_within_each_kind_of_edit(tmp_path):
    rows = [  # (gold, source, mutation_type, score)
        ("contradiction", "rule_cross", "negation_polarity", 0.9),
        ("neutral", "rule_cross", "negation_polarity", 0.7),
        ("neutral", "rule_cross", "negation_polarity", 0.2),
        ("contradiction", "rule_cross", "scalar", 0.3),
        ("neutral", "rule_cross", "scalar", 0.1),
        ("neutral", "evonli_near_miss", "causation", 0.5),
        ("entailment", "original", None, 0.05),
    ]
    path = tmp_path / "judgements.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"j-{n}",
                    "pmid": str(n),
                    "sentence1": "A.",
                    "sentence2": "B.",
                    "gold": gold,
                    "source": source,
                    "mutation_type": kind,
                }
            )
            + "\n"
            for n, (gold, source, kind, _) in enumerate(rows)
        )
    )
    pairs = load_benchmarks({"gold": SetSpec(kind="gold", path=str(path), options=None)})["gold"].pairs
    figures = judge_figures(pairs, [row[3] for row in rows], target=0.4, **SETTINGS)
    within = figures["within_edits"]
    # negations: 0.9 beats 0.7 and 0.2; the rest: 0.3 beats 0.1, not 0.5
    assert (within["negation"]["examples"], within["negation"]["roc_auc"]) == (3, 1.0)
    assert (within["not_negation"]["examples"], within["not_negation"]["roc_auc"]) == (3, 0.5)
    scalar = figures["by_mutation_type"]["scalar"]
    assert (scalar["examples"], scalar["contradictions"], scalar["acceptance"]) == (2, 1, 0.0)
    assert figures["by_mutation_type"]["negation_polarity"]["precision"] == 0.5


def test_pairs_without_mutation_types_get_no_edit_breakdown(pairs):
    figures = judge_figures(pairs, SCORES, target=0.4, **SETTINGS)
    assert "within_edits" not in figures and "by_mutation_type" not in figures
