"""The ablation report: SciCon recipes × benchmarks, read back from DVC experiments.

Each recipe is a DVC experiment (or any git revision, or ``workspace``) whose evaluate
stage wrote ``reports/evaluate.json`` and one per-example score table per benchmark
(``plots/scores/<benchmark>.csv``, in git). The report prints, per benchmark:

- each recipe's classifier ROC-AUC with its 95 % bootstrap interval, beside the zero-shot
  backbone and the best trivial baseline of that run;
- the paired bootstrap test of each recipe against the reference recipe on the same
  examples (joined by example key; not made where two runs scored different examples,
  as SciCon's own test split does when recipes differ), and against the best baseline.

    python -m scicon.report rules_self rules_cross evonli_rules evonli_only --reference rules_self
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

from scicon.evaluate.roc import paired_auc_test

WORKSPACE = "workspace"
METRICS = "reports/evaluate.json"
SCORES = "plots/scores"


@dataclass
class Run:
    name: str
    revision: str
    metrics: dict
    sources: list[str]
    root: Path

    def scores(self, benchmark: str) -> dict[str, tuple[int, dict[str, float]]] | None:
        text = read_at(self.root, self.revision, f"{SCORES}/{benchmark}.csv")
        if text is None:
            return None
        rows = csv.DictReader(io.StringIO(text))
        return {
            row["key"]: (
                int(row["label"]),
                {k: float(v) for k, v in row.items() if k not in ("key", "label")},
            )
            for row in rows
        }


def read_at(root: Path, revision: str, path: str) -> str | None:
    if revision == WORKSPACE:
        file = root / path
        return file.read_text(encoding="utf-8") if file.is_file() else None
    shown = subprocess.run(["git", "show", f"{revision}:{path}"], cwd=root, capture_output=True, text=True)
    return shown.stdout if shown.returncode == 0 else None


def experiment_revisions(root: Path) -> dict[str, str]:
    """DVC experiment name -> commit, from the experiment refs git keeps (refs/exps/...)."""
    listed = subprocess.run(
        ["git", "for-each-ref", "refs/exps", "--format=%(refname) %(objectname)"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    return {line.split()[0].rsplit("/", 1)[-1]: line.split()[1] for line in listed if line.strip()}


def load_run(name: str, root: Path, experiments: dict[str, str]) -> Run:
    revision = name if name == WORKSPACE else experiments.get(name, name)
    text = read_at(root, revision, METRICS)
    if text is None:
        raise SystemExit(
            f"{name}: no {METRICS} at {revision} (an experiment name, a git revision or {WORKSPACE})"
        )
    params = yaml.safe_load(read_at(root, revision, "params.yaml") or "{}") or {}
    return Run(name, revision, json.loads(text), list(params.get("build", {}).get("sources", [])), root)


def _cell(entry: dict) -> str:
    return f"{entry['roc_auc']:.3f} [{entry['roc_auc_ci_low']:.3f}, {entry['roc_auc_ci_high']:.3f}]"


def _paired(run: Run, reference: Run, benchmark: str, model: str) -> str:
    if run is reference:
        return "—"
    mine, theirs = run.scores(benchmark), reference.scores(benchmark)
    if mine is None or theirs is None or set(mine) != set(theirs):
        return "n/a (different examples)"
    keys = sorted(mine)
    labels = [mine[k][0] for k in keys]
    settings = run.metrics
    test = paired_auc_test(
        labels,
        [mine[k][1][model] for k in keys],
        [theirs[k][1][model] for k in keys],
        resamples=int(settings.get("bootstrap_resamples", 1000)),
        confidence=float(settings.get("confidence_level", 0.95)),
        seed=0,
    )
    return f"{test.difference:+.3f}, p={test.p_value:.3g}"


def report(runs: list[Run], reference: Run, benchmarks: list[str], model: str) -> str:
    lines = []
    for benchmark in benchmarks:
        lines += [f"### {benchmark}", ""]
        lines.append(
            f"| recipe | build.sources | ROC-AUC [95% CI] | vs {reference.name} | vs best baseline |"
        )
        lines.append("|---|---|---|---|---|")
        first = None
        for run in runs:
            entry = run.metrics.get(benchmark, {})
            if entry.get("status") != "evaluated" or model not in entry.get("models", {}):
                lines.append(
                    f"| {run.name} | {', '.join(run.sources)} | {entry.get('reason', 'not evaluated')} | | |"
                )
                continue
            first = first or entry
            versus = entry.get("paired", {}).get(f"{model}_vs_best_baseline")
            against_baseline = (
                f"{versus['roc_auc_difference']:+.3f}, p={versus['p_value']:.3g}" if versus else ""
            )
            lines.append(
                f"| {run.name} | {', '.join(run.sources)} | {_cell(entry['models'][model])} | "
                f"{_paired(run, reference, benchmark, model)} | {against_baseline} |"
            )
        if first is not None:
            if "zero_shot" in first["models"]:
                lines.append(f"| zero-shot backbone | — | {_cell(first['models']['zero_shot'])} | | |")
            best = first.get("best_baseline")
            if best:
                lines.append(f"| best trivial baseline: {best} | — | {_cell(first['baselines'][best])} | | |")
            lines.append("")
            lines.append(f"{first['examples']} pairs, {first['contradictions']} contradictions.")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help=f"DVC experiment names, git revisions or {WORKSPACE}")
    parser.add_argument("--reference", help="the recipe every other is tested against (default: the first)")
    parser.add_argument("--benchmarks", nargs="+", default=["healthver_dev", "nli4ct_dev", "scicon_test"])
    parser.add_argument("--model", default="scicon", help="the classifier column (evaluate.classifiers name)")
    parser.add_argument("--root", type=Path, default=Path("."))
    args = parser.parse_args(argv)
    experiments = experiment_revisions(args.root)
    runs = [load_run(name, args.root, experiments) for name in args.runs]
    reference = next((run for run in runs if run.name == args.reference), runs[0])
    print(report(runs, reference, args.benchmarks, args.model))


if __name__ == "__main__":
    main()
