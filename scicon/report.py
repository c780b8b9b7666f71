"""The ablation report: SciCon recipes × benchmarks, read back from DVC experiments.

Each recipe is a DVC experiment (or any git revision, or ``workspace``) whose evaluate
stage wrote ``reports/evaluate.json`` and one per-example score table per benchmark
(``plots/scores/<benchmark>.csv``, in git). The report prints, per benchmark:

- each recipe's classifier ROC-AUC with its 95 % bootstrap interval;
- paired bootstrap tests on the same examples (joined by example key): each recipe against
  the reference recipe (not made where two runs scored different examples, as SciCon's own
  test split does when recipes differ) and against every trivial baseline family
  (hypothesis-only, word overlap, embedding cosine, negation cue; a family scored in both
  directions in its better one);
- the zero-shot backbone and the baselines themselves, with their intervals;
- a verdict line per recipe: does it beat the reference and every unsupervised baseline
  (overlap, embedding cosine, negation cue) with paired p below 1 - the confidence level?

    python -m scicon.report rules-only scicon-v2 labelled labelled-scicon-v2 --reference rules-only \\
        --benchmarks healthver_dev nli4ct_dev gold
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from scicon.evaluate.roc import paired_auc_test
from scicon.params import parse_params_text

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
    params = parse_params_text(read_at(root, revision, "params.yaml") or "{}") or {}
    return Run(name, revision, json.loads(text), list(params.get("build", {}).get("sources", [])), root)


# The trivial baselines every recipe is tested against, by family: a family scored in two
# directions (`overlap` and `overlap_negated`) counts in its better one on each benchmark.
BASELINES = ("hypothesis_only", "overlap", "embedding_cosine", "negation_cue")
UNSUPERVISED = ("overlap", "embedding_cosine", "negation_cue")  # hypothesis-only learns from the benchmark
NEGATED = "_negated"


def _cell(entry: dict) -> str:
    return f"{entry['roc_auc']:.3f} [{entry['roc_auc_ci_low']:.3f}, {entry['roc_auc_ci_high']:.3f}]"


def _test(run: Run, labels: list[int], a: list[float], b: list[float]):
    settings = run.metrics
    return paired_auc_test(
        labels,
        a,
        b,
        resamples=int(settings.get("bootstrap_resamples", 1000)),
        confidence=float(settings.get("confidence_level", 0.95)),
        seed=0,
    )


def _difference(test) -> str:
    return f"{test.difference:+.3f} (p={test.p_value:.3g})"


def baseline_column(entry: dict, family: str) -> str | None:
    """The column of ``family`` in its better direction on this benchmark (None if not scored)."""
    baselines = entry.get("baselines", {})
    scored = [
        name
        for name in (family, family + NEGATED)
        if isinstance(baselines.get(name), dict) and baselines[name].get("roc_auc") is not None
    ]
    return max(scored, key=lambda name: baselines[name]["roc_auc"], default=None)


@dataclass
class Row:
    run: Run
    entry: dict
    versus_reference: object | None  # PairedComparison, or None (the reference, or different examples)
    versus_baselines: dict[str, object]  # family -> PairedComparison


def compare(run: Run, reference: Run, benchmark: str, model: str) -> Row | None:
    """The run's classifier on ``benchmark`` against the reference recipe and every baseline family,
    each a paired bootstrap on the same examples (None when the run did not evaluate it)."""
    entry = run.metrics.get(benchmark, {})
    if entry.get("status") != "evaluated" or model not in entry.get("models", {}):
        return None
    mine = run.scores(benchmark)
    if mine is None:
        raise SystemExit(f"{run.name}: no {SCORES}/{benchmark}.csv at {run.revision}")
    keys = sorted(mine)
    labels = [mine[k][0] for k in keys]
    ours = [mine[k][1][model] for k in keys]
    versus_reference = None
    if run is not reference:
        theirs = reference.scores(benchmark)
        if theirs is not None and set(theirs) == set(mine) and all(model in theirs[k][1] for k in keys):
            versus_reference = _test(run, labels, ours, [theirs[k][1][model] for k in keys])
    versus_baselines = {}
    for family in BASELINES:
        column = baseline_column(entry, family)
        if column is not None:
            versus_baselines[family] = _test(run, labels, ours, [mine[k][1][column] for k in keys])
    return Row(run, entry, versus_reference, versus_baselines)


def verdict(row: Row, reference: Run, alpha: float) -> str:
    """One line: does this recipe beat the reference and every unsupervised baseline (paired p < alpha)?"""
    beaten, missed = [], []
    comparisons = [(reference.name, row.versus_reference)] if row.run is not reference else []
    comparisons += [(family, row.versus_baselines.get(family)) for family in UNSUPERVISED]
    for name, test in comparisons:
        if test is None:
            missed.append(f"{name} (not comparable)")
        elif test.difference > 0 and test.p_value < alpha:
            beaten.append(name)
        else:
            missed.append(f"{name} ({test.difference:+.3f}, p={test.p_value:.3g})")
    if not missed:
        return f"**{row.run.name}** beats {', '.join(beaten)} (each p < {alpha:g})"
    above = f"beats {', '.join(beaten)}; " if beaten else ""
    return f"**{row.run.name}** {above}does not beat {', '.join(missed)}"


def report(runs: list[Run], reference: Run, benchmarks: list[str], model: str) -> str:
    lines = []
    for benchmark in benchmarks:
        lines += [f"### {benchmark}", ""]
        header = ["recipe", "build.sources", "ROC-AUC [95% CI]", f"vs {reference.name}"]
        header += [f"vs {family}" for family in BASELINES]
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        rows = []
        for run in runs:
            row = compare(run, reference, benchmark, model)
            sources = ", ".join(run.sources)
            if row is None:
                reason = run.metrics.get(benchmark, {}).get("reason", "not evaluated")
                lines.append(f"| {run.name} | {sources} | {reason} |" + " |" * (len(header) - 3))
                continue
            rows.append(row)
            versus = "—" if run is reference else "n/a (different examples)"
            cells = [run.name, sources, _cell(row.entry["models"][model])]
            cells.append(_difference(row.versus_reference) if row.versus_reference else versus)
            cells += [
                _difference(row.versus_baselines[f]) if f in row.versus_baselines else "—" for f in BASELINES
            ]
            lines.append("| " + " | ".join(cells) + " |")
        if not rows:
            lines.append("")
            continue
        first = rows[0].entry
        if "zero_shot" in first["models"]:
            lines.append(f"| zero-shot backbone | — | {_cell(first['models']['zero_shot'])} |" + " |" * 5)
        for family in BASELINES:
            column = baseline_column(first, family)
            if column is not None:
                lines.append(f"| baseline: {column} | — | {_cell(first['baselines'][column])} |" + " |" * 5)
        alpha = 1.0 - float(rows[0].run.metrics.get("confidence_level", 0.95))
        lines += ["", f"{first['examples']} pairs, {first['contradictions']} contradictions. Paired "
                  f"bootstrap tests on the same pairs (difference in ROC-AUC, two-sided p, no correction "
                  f"for multiple tests); a baseline in its better direction.", ""]  # fmt: skip
        lines += [f"- {verdict(row, reference, alpha)}" for row in rows]
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
