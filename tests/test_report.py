"""The ablation report: recipes read back from git revisions, paired tests, verdict lines."""

from __future__ import annotations

import csv
import json
import subprocess

import numpy as np
import pytest
import yaml

from scicon.evaluate.roc import auc_with_interval
from scicon.report import experiment_revisions, load_run, report
from tests.dvc_project import GIT_IDENTITY


def _entry(labels: np.ndarray, columns: dict[str, np.ndarray], models: tuple[str, ...]) -> dict:
    def auc(values):
        found = auc_with_interval(labels, values, resamples=200, confidence=0.95, seed=0)
        return {"roc_auc": found.auc, "roc_auc_ci_low": found.ci_low, "roc_auc_ci_high": found.ci_high}

    return {
        "status": "evaluated",
        "examples": len(labels),
        "contradictions": int(labels.sum()),
        "models": {name: auc(columns[name]) for name in models},
        "baselines": {name: auc(values) for name, values in columns.items() if name not in models},
    }


def _commit_run(root, sources: list[str], strength: float, message: str) -> None:
    rng = np.random.default_rng(7)  # the same pairs and baselines in every run
    labels = rng.integers(0, 2, 300)
    noise = np.random.default_rng(int(strength * 100)).normal(size=300)
    columns = {
        "scicon": labels * strength + noise,
        "overlap": -labels * 0.3 + rng.normal(size=300),  # informative in the negated direction
        "negation_cue": rng.normal(size=300),
    }
    columns["overlap_negated"] = -columns["overlap"]
    (root / "plots/scores").mkdir(parents=True, exist_ok=True)
    with (root / "plots/scores/bench.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["key", "label", *columns])
        for index, label in enumerate(labels):
            writer.writerow([f"bench:{index}", int(label), *(f"{columns[c][index]:.6f}" for c in columns)])
    metrics = {"bench": _entry(labels, columns, ("scicon",)), "bootstrap_resamples": 300}
    (root / "reports").mkdir(exist_ok=True)
    (root / "reports/evaluate.json").write_text(json.dumps(metrics))
    (root / "params.yaml").write_text(yaml.safe_dump({"build": {"sources": sources}}))
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", message], cwd=root, check=True, env={**GIT_IDENTITY})


@pytest.fixture
def recipes(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    _commit_run(tmp_path, ["original", "rules_cross"], 0.4, "rules")
    subprocess.run(["git", "tag", "rules"], cwd=tmp_path, check=True)
    _commit_run(tmp_path, ["labelled"], 1.5, "labelled")
    return tmp_path


def test_each_recipe_is_tested_against_the_reference_and_every_baseline_in_its_better_direction(recipes):
    experiments = experiment_revisions(recipes)  # none here: names are git revisions
    runs = [load_run(name, recipes, experiments) for name in ("rules", "workspace")]
    text = report(runs, runs[0], ["bench"], "scicon")
    lines = text.splitlines()
    rules_row = next(line for line in lines if line.startswith("| rules |"))
    workspace_row = next(line for line in lines if line.startswith("| workspace |"))
    assert "original, rules_cross" in rules_row and "| — |" in rules_row
    # the stronger recipe is significantly above the reference, on the same 300 pairs
    difference = float(workspace_row.split("|")[4].split()[0])
    assert difference > 0.2 and "p=0.00" in workspace_row.split("|")[4]
    assert "| baseline: overlap_negated |" in text and "| baseline: overlap |" not in text
    assert "300 pairs" in text
    verdicts = [line for line in lines if line.startswith("- **")]
    assert verdicts[1].startswith("- **workspace** beats rules, overlap, negation_cue")
    assert "embedding_cosine (not comparable)" in verdicts[1]  # not scored here: never counted as beaten
    assert "does not beat" in verdicts[0]


def test_a_benchmark_a_run_did_not_evaluate_says_so(recipes):
    runs = [load_run("workspace", recipes, {})]
    runs[0].metrics["bench"] = {"status": "skipped", "reason": "file not found: bench.csv"}
    assert "| workspace | labelled | file not found: bench.csv |" in report(
        runs, runs[0], ["bench"], "scicon"
    )
