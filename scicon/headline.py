"""Headline metrics: the few numbers per stage a researcher compares between runs.

Every stage writes every figure it computed (breakdowns per operator, source and stratum,
calibration details, skip reasons, cache counters, timings) to ``reports/<stage>.json``
(``--figures``), tracked in git but not a DVC metric, and the figures chosen here to ``metrics/<stage>.json``,
the DVC metrics that ``dvc metrics show`` / ``diff`` and ``dvc exp show`` print. Timings and
cache counters are operational, never headline: two runs with identical results show no
metric change. docs/workflows.md lists every headline figure and where the rest lives.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path

from scicon.io import write_json
from scicon.params import lookup

Report = Mapping[str, object]


def _pick(report: Report, names: Mapping[str, str]) -> dict:
    return {name: lookup(report, dotted) for name, dotted in names.items()}


# A judge's gold figures in its headline: name -> dotted path under the report's `gold`
GOLD_HEADLINE = {
    "gold_roc_auc": "overall.roc_auc",
    "gold_roc_auc_within_rule_negatives": "within_rule_negatives.roc_auc",
}

# Headline name -> dotted path in the stage's report, for every stage whose headline is a
# fixed choice of figures (entailment and evaluate compute theirs below).
PICKED: dict[str, dict[str, str]] = {
    "ingest": {"abstracts": "abstracts", "sentences": "sentences"},
    "pairs": {"pairs": "pairs", "result_conclusion_pairs": "pairs_per_kind.result_conclusion"},
    "find": {
        "claims": "claims",
        "pairs": "pairs",
        "comparable": "comparable",
        "flagged": "flagged",
        "stance_groups": "stance_groups",
        "non_claims": "non_claims.left_out",
    },
    "negatives": {
        "contradictions": "contradictions",
        "controls": "controls",
        "pairs_untouched_share": "pairs_untouched_share",
    },
    "teacher": {
        "dev_roc_auc": "dev.calibrated_cross_fitted.roc_auc",
        **{name: f"gold.{path}" for name, path in GOLD_HEADLINE.items()},
    },
    # Short names, so the thresholds and their filters fit one terminal row in `dvc exp show`:
    # `asr` is the attack success rate (paper section 6), `<threshold>_pass` the share of
    # scored candidates the filter of that threshold passed.
    "evolve": {
        "asr": "attack_success_rate",
        "asr_ci_low": "attack_success_rate_ci_low",
        "asr_ci_high": "attack_success_rate_ci_high",
        "accepted": "succeeded",
        "pairs_tried": "pairs_tried",
        "sim_pass": "similarity_pass_rate",
        "claim_pass": "claim_pass_rate",
        "target_pass": "target_pass_rate",
        "contradiction_ratio": "contradiction_ratio",
    },
    "build": {
        "examples": "examples",
        "contradiction_fraction": "all.contradiction_fraction",
        "hypothesis_only_roc_auc": "hypothesis_only_roc_auc",
        "gate_offered": "gate.offered",
        "gate_kept": "gate.kept",
        "gate_kept_read_precision": "gate.kept_read_precision.all.share",
    },
    "naturalness": {
        "trained": "trained",
        "edits": "edits",
        "roc_auc": "out_of_sample.roc_auc",
        "edit_size_baseline_roc_auc": "edit_size_baseline.roc_auc",
    },
    "finetune": {"dev_roc_auc": "dev_roc_auc", "best_step": "best_step"},
    "audit": {
        # the sample's size beside what was judged: agreement on 35 of 100 items is no audit
        "items": "items",
        "items_judged": "items_judged",
        "agreement": "agreement",
        "majority_accuracy": "majority_accuracy",
        "contradiction_precision": "precision.contradiction.precision",
        "fleiss_kappa": "reliability.fleiss_kappa",
    },
}


def entailment(report: Report) -> dict:
    """An untrained judge's report says so; a trained one's has no ``trained`` key. A three-way
    judge's headline adds its contradiction figures, the teacher's."""
    trained = report.get("trained", True)
    figures = {"trained": trained, "dev_roc_auc": lookup(report, "dev.calibrated_cross_fitted.roc_auc")}
    if report.get("head") == "three_way":
        figures["contradiction_dev_roc_auc"] = lookup(
            report, "classes.contradiction.dev.calibrated_cross_fitted.roc_auc"
        )
        figures |= _pick(report, {name: f"gold.{path}" for name, path in GOLD_HEADLINE.items()})
    return figures


def evaluate(report: Report) -> dict:
    """ROC-AUC of every classifier and of the best trivial baseline per evaluated benchmark (and on
    gold pairs each classifier's precision at ``target``), and how many benchmarks a trivial
    baseline wins against SciCon."""
    figures: dict = {}
    for name, benchmark in report.items():
        if not isinstance(benchmark, Mapping) or benchmark.get("status") != "evaluated":
            continue
        models = benchmark.get("models") or {}
        figures[name] = {f"{model}_roc_auc": lookup(models, f"{model}.roc_auc") for model in models}
        figures[name]["best_baseline_roc_auc"] = benchmark.get("best_baseline_roc_auc")
        for model in models:  # pairs that say how they were made (gold): precision at `target`
            if lookup(benchmark, f"judge.{model}.at_target") is not None:
                figures[name][f"{model}_precision_at_target"] = lookup(
                    benchmark, f"judge.{model}.at_target.precision"
                )
    figures["benchmarks_evaluated"] = report.get("benchmarks_evaluated")
    figures["baseline_wins_scicon"] = lookup(report, "baseline_wins.scicon")
    return figures


HEADLINES: dict[str, Callable[[Report], dict]] = {
    **{stage: functools.partial(_pick, names=names) for stage, names in PICKED.items()},
    "entailment": entailment,
    "verifier": entailment,
    "evaluate": evaluate,
}


def write_report_and_headline(
    stage: str, report: Report, figures_path: str | Path, metrics_path: str | Path
) -> None:
    """The whole ``report`` to ``figures_path``; the stage's headline figures to ``metrics_path``."""
    write_json(figures_path, report)
    write_json(metrics_path, HEADLINES[stage](report))
