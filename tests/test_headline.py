"""Headline metrics: few figures per stage as DVC metrics, everything else in the report."""

from __future__ import annotations

import json
from pathlib import Path

from scicon.headline import HEADLINES, write_report_and_headline

DOCS = Path(__file__).resolve().parent.parent / "docs" / "workflows.md"


def test_every_headline_figure_is_named_in_the_workflow_docs():
    text = DOCS.read_text()
    for stage, headline in HEADLINES.items():
        for name in headline({}):
            assert f"`{name}`" in text, f"{stage}: {name} is not in docs/workflows.md"


def test_the_evolve_headline_leaves_timings_counters_and_breakdowns_in_the_report(tmp_path):
    report = {
        "attack_success_rate": 0.4,
        "attack_success_rate_ci_low": 0.2,
        "attack_success_rate_ci_high": 0.6,
        "succeeded": 4,
        "pairs_tried": 10,
        "similarity_pass_rate": 0.9,
        "claim_pass_rate": 0.8,
        "target_pass_rate": 0.3,
        "contradiction_ratio": 0.25,
        "wall_seconds": 12.5,
        "backbone": {"calls_cached": 30, "model_seconds": 1.5},
        "rejections": {"grounded": 7},
    }
    figures, metrics = tmp_path / "reports/evolve.json", tmp_path / "metrics/evolve.json"
    write_report_and_headline("evolve", report, figures, metrics)

    headline = json.loads(metrics.read_text())
    assert headline["asr"] == 0.4 and headline["accepted"] == 4 and headline["sim_pass"] == 0.9
    assert not {"wall_seconds", "backbone", "rejections"} & set(headline)
    assert json.loads(figures.read_text()) == report


def test_a_missing_figure_is_null_not_an_error():
    assert HEADLINES["teacher"]({"gold": None}) == {
        "dev_roc_auc": None,
        "gold_roc_auc": None,
        "gold_roc_auc_within_rule_negatives": None,
    }


def test_evaluate_keeps_each_evaluated_benchmarks_roc_aucs_and_drops_skipped_ones():
    report = {
        "benchmarks_evaluated": 1,
        "baseline_wins": {"scicon": 1, "teacher": 0},
        "demo": {
            "status": "evaluated",
            "models": {"scicon": {"roc_auc": 0.61, "brier": 0.2}, "teacher": {"roc_auc": 0.7, "ece": 0.1}},
            "best_baseline_roc_auc": 0.65,
            "paired": {"scicon_vs_teacher": {"p_value": 0.3}},
        },
        "gold": {
            "status": "evaluated",
            "models": {"scicon": {"roc_auc": 0.6}, "teacher": {"roc_auc": 0.75}},
            "best_baseline_roc_auc": 0.7,
            "judge": {
                "scicon": {"at_target": {"precision": 0.3, "acceptance": 0.5}},
                "teacher": {"at_target": {"precision": 0.25, "acceptance": 0.6}},
                "overlap": {"overall": {"roc_auc": 0.7}},
            },
        },
        "healthver_dev": {"status": "skipped", "reason": "file not found"},
        "zero_shot_backbone": {"calls_cached": 10},
    }
    assert HEADLINES["evaluate"](report) == {
        "demo": {"scicon_roc_auc": 0.61, "teacher_roc_auc": 0.7, "best_baseline_roc_auc": 0.65},
        "gold": {
            "scicon_roc_auc": 0.6,
            "teacher_roc_auc": 0.75,
            "best_baseline_roc_auc": 0.7,
            "scicon_precision_at_target": 0.3,
            "teacher_precision_at_target": 0.25,
        },
        "benchmarks_evaluated": 1,
        "baseline_wins_scicon": 1,
    }
