"""The threshold sensitivity study of appendix C, as a grid of queued DVC experiments.

One threshold at a time is set to each of five values while the other two stay at
their params.yaml values (paper "Evolutionary Self-Supervised Contradiction
Detection for Biomedical NLI", appendix C, Figure 1). Each grid point is a DVC
experiment that reruns the evolve stage only (`dvc exp run --queue evolve -S ...`);
the persistent backbone call cache makes the points after the first cheap, since
most candidates recur. `plot` reads the finished experiments back through DVC and
draws attack success rate with its 95% Wilson interval and the pass rate of the
filter that threshold controls.

    python -m scicon.sweep queue            # queue the grid (13 distinct experiments)
    dvc queue start --jobs 1                # run them in the background
    dvc queue status                        # follow progress
    python -m scicon.sweep plot             # plots/sweep/threshold_sensitivity.{csv,png}
"""

from __future__ import annotations

import argparse
import logging
import math
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from scicon.errors import SciconError
from scicon.params import Thresholds, load_thresholds
from scicon.plots import write_csv
from scicon.stage import run_stage

log = logging.getLogger(__name__)

# Five values per threshold around the defaults; sim and target follow appendix C (similarity
# 0.2-0.8, target 0.1-0.55 and one stricter point). The paper's claim range (0.5-0.9) is on an
# LLM's P(yes); the calibrated claim model's default is 0.1 (params.yaml), so its five values
# bracket that, up to the 0.5 where the paper's range starts.
SWEEP_VALUES: dict[str, tuple[float, ...]] = {
    "sim": (0.2, 0.35, 0.5, 0.65, 0.8),
    "claim": (0.02, 0.05, 0.1, 0.25, 0.5),
    "target": (0.1, 0.25, 0.4, 0.55, 0.7),
}
# The filter each threshold controls, by its pass-rate key in metrics/evolve.json (the headline).
PASS_RATE_METRIC = {"sim": "sim_pass", "claim": "claim_pass", "target": "target_pass"}
EXPERIMENT_PREFIX = "sweep"
EVOLVE_METRICS = "metrics/evolve.json"
SWEEP_FIELDS = (
    "threshold",
    "value",
    "is_default",
    "experiment",
    "pairs_tried",
    "succeeded",
    "attack_success_rate",
    "attack_success_rate_ci_low",
    "attack_success_rate_ci_high",
    "pass_rate",
)


@dataclass(frozen=True)
class GridPoint:
    thresholds: Thresholds

    @property
    def name(self) -> str:
        t = self.thresholds
        return f"{EXPERIMENT_PREFIX}-sim{t.sim:g}-claim{t.claim:g}-target{t.target:g}"


def sweep_grid(defaults: Thresholds, values: Mapping[str, Sequence[float]] = SWEEP_VALUES) -> list[GridPoint]:
    """Every one-at-a-time grid point, each distinct setting once (the defaults are shared)."""
    points: dict[Thresholds, GridPoint] = {}
    for threshold, settings in values.items():
        for value in settings:
            thresholds = defaults.model_copy(update={threshold: float(value)})
            points.setdefault(thresholds, GridPoint(thresholds))
    return list(points.values())


def experiment_commands(points: Iterable[GridPoint], extra_settings: Sequence[str] = ()) -> list[list[str]]:
    """`dvc exp run --queue` of the evolve stage per grid point."""
    commands = []
    for point in points:
        t = point.thresholds
        command = ["dvc", "exp", "run", "--queue", "--name", point.name, "evolve"]
        for key, value in (("sim", t.sim), ("claim", t.claim), ("target", t.target)):
            command += ["--set-param", f"{key}={value:g}"]
        for setting in extra_settings:
            command += ["--set-param", setting]
        commands.append(command)
    return commands


@dataclass(frozen=True)
class SweepResult:
    """One finished experiment: its thresholds and the evolve stage's metrics."""

    experiment: str
    thresholds: Thresholds
    metrics: Mapping[str, object]


def results_from_experiments(experiments: Iterable[Mapping]) -> list[SweepResult]:
    """Finished sweep experiments from `dvc.api.exp_show()` rows (queued and failed ones are left out)."""
    results = []
    for row in experiments:
        name = str(row.get("Experiment") or "")
        if not name.startswith(f"{EXPERIMENT_PREFIX}-") or row.get("State") not in (None, "Success"):
            continue
        if _column(row, "pairs_tried") is None:
            log.warning("experiment %s has no %s; left out", name, EVOLVE_METRICS)
            continue
        thresholds = Thresholds(
            sim=_column(row, "sim"), claim=_column(row, "claim"), target=_column(row, "target")
        )
        metrics = {key: _column(row, key) for key in PASS_RATE_METRIC.values()}
        metrics |= {field: _column(row, column) for field, column in _RATE_COLUMNS.items()}
        for count in ("pairs_tried", "succeeded"):  # exp_show may hand counts back as floats
            if metrics[count] is not None:
                metrics[count] = int(metrics[count])
        results.append(SweepResult(name, thresholds, metrics))
    return results


# The sweep table's fields, by their headline names in metrics/evolve.json.
_RATE_COLUMNS = {
    "pairs_tried": "pairs_tried",
    "succeeded": "accepted",
    "attack_success_rate": "asr",
    "attack_success_rate_ci_low": "asr_ci_low",
    "attack_success_rate_ci_high": "asr_ci_high",
}


def _column(row: Mapping, key: str) -> float | None:
    """A number from an exp_show row. DVC prefixes a name with its file only when two files
    share it, and hands a column back as text when some experiments lack the value."""
    for candidate in (key, f"{EVOLVE_METRICS}:{key}", f"params.yaml:{key}"):
        value = row.get(candidate)
        if value is None or value in ("-", "", "None", "null"):
            continue
        try:
            return float(value)
        except (TypeError, ValueError):
            log.warning("experiment %s: %s is %r, not a number", row.get("Experiment"), key, value)
    return None


def sweep_rows(results: Sequence[SweepResult], defaults: Thresholds) -> list[dict]:
    """The rows of each panel: experiments where only that threshold differs from the defaults."""
    rows = []
    for threshold, pass_rate_key in PASS_RATE_METRIC.items():
        others = [name for name in PASS_RATE_METRIC if name != threshold]
        panel = {}
        for result in results:
            if all(math.isclose(getattr(result.thresholds, o), getattr(defaults, o)) for o in others):
                panel[getattr(result.thresholds, threshold)] = result
        for value, result in sorted(panel.items()):
            rows.append(
                {
                    "threshold": threshold,
                    "value": value,
                    "is_default": math.isclose(value, getattr(defaults, threshold)),
                    "experiment": result.experiment,
                    "pass_rate": result.metrics.get(pass_rate_key),
                    **{field: result.metrics.get(field) for field in _RATE_COLUMNS},
                }
            )
    return rows


def plot_sweep(rows: Sequence[Mapping], defaults: Thresholds, path: Path) -> None:
    """Figure 1 of appendix C: success rate with Wilson interval (left), filter pass rate (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = {
        "sim": "similarity threshold (sim)",
        "claim": "claim threshold (claim)",
        "target": "target threshold",
    }
    figure, axes = plt.subplots(1, len(PASS_RATE_METRIC), figsize=(13, 3.8), constrained_layout=True)
    for axis, threshold in zip(axes, PASS_RATE_METRIC, strict=True):
        panel = [row for row in rows if row["threshold"] == threshold]
        axis.set_xlabel(labels[threshold])
        axis.set_ylim(-0.02, 1.02)
        axis.axvline(getattr(defaults, threshold), color="grey", linestyle=":", linewidth=1)
        if not panel:
            axis.text(0.5, 0.5, "no finished experiments", ha="center", transform=axis.transAxes)
            continue
        # a point where every pair was skipped (its original already met the target) has no rate
        rated = [row for row in panel if row["attack_success_rate"] is not None]
        values = [row["value"] for row in rated]
        rates = [row["attack_success_rate"] for row in rated]
        errors = [
            [rate - row["attack_success_rate_ci_low"] for rate, row in zip(rates, rated, strict=True)],
            [row["attack_success_rate_ci_high"] - rate for rate, row in zip(rates, rated, strict=True)],
        ]
        swept = [row["value"] for row in panel]
        margin = 0.05 * (max(swept) - min(swept) or 1)
        axis.set_xlim(min(swept) - margin, max(swept) + margin)  # unrated points stay in view
        for row in panel:
            if row["attack_success_rate"] is None:
                axis.annotate("all pairs\nskipped", (row["value"], 0.03), ha="center", fontsize=8)
        axis.errorbar(
            values, rates, yerr=errors, color="tab:blue", marker="o", capsize=3, label="attack success"
        )
        axis.set_ylabel("attack success rate (95% Wilson CI)", color="tab:blue")
        passes = axis.twinx()
        pass_values = [(row["value"], row["pass_rate"]) for row in panel if row["pass_rate"] is not None]
        if pass_values:
            passes.plot(*zip(*pass_values, strict=True), color="tab:orange", linestyle="--", marker="s")
        passes.set_ylim(-0.02, 1.02)
        passes.set_ylabel(f"{threshold} filter pass rate", color="tab:orange")
        pairs = {row["pairs_tried"] for row in panel}
        axis.set_title(
            f"{threshold}: n = {', '.join(str(p) for p in sorted(pairs))} pairs per point", fontsize=10
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    figure.savefig(temporary, dpi=120, format="png")
    plt.close(figure)
    temporary.replace(path)


def _run(command: list[str]) -> None:
    log.info("%s", " ".join(command))
    result = subprocess.run([sys.executable, "-m", *command], check=False)
    if result.returncode != 0:
        raise SciconError(f"{' '.join(command)} failed with exit status {result.returncode}")


def _describe(row: Mapping) -> str:
    if row["attack_success_rate"] is None:
        success = f"success - (all {row['pairs_tried']} pairs skipped)"
    else:
        success = (
            f"success {row['attack_success_rate']:.3f} "
            f"[{row['attack_success_rate_ci_low']:.3f}, {row['attack_success_rate_ci_high']:.3f}] "
            f"of {row['pairs_tried']} pairs"
        )
    pass_rate = "-" if row["pass_rate"] is None else f"{row['pass_rate']:.3f}"
    return f"{success}, pass rate {pass_rate}"


def main(args: argparse.Namespace) -> None:
    defaults = load_thresholds(args.params)
    if args.command == "queue":
        points = sweep_grid(defaults)
        for command in experiment_commands(points, args.set_param):
            _run(command)
        print(f"queued {len(points)} experiments; run them with: dvc queue start --jobs 1")
        return
    import dvc.api

    results = results_from_experiments(dvc.api.exp_show(repo=args.repo))
    rows = sweep_rows(results, defaults)
    if not rows:
        raise SciconError(
            "no finished sweep experiments: run `python -m scicon.sweep queue` and `dvc queue start`"
        )
    write_csv(args.csv, rows, SWEEP_FIELDS)
    plot_sweep(rows, defaults, Path(args.png))
    for row in rows:
        print(f"{row['threshold']:>6} = {row['value']:<5g} {_describe(row)} ({row['experiment']})")
    print(f"wrote {args.csv} and {args.png}")


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    command.add_argument("--params", default="params.yaml", help="parameters file with the defaults")
    actions = command.add_subparsers(dest="command", required=True)
    queue = actions.add_parser(
        "queue", help="queue the one-at-a-time grid as DVC experiments of the evolve stage"
    )
    queue.add_argument(
        "--set-param",
        "-S",
        action="append",
        default=[],
        help="extra setting for every experiment, e.g. -S evolve.max_pairs=150",
    )
    plot = actions.add_parser("plot", help="collect finished sweep experiments into a CSV and a PNG")
    plot.add_argument("--repo", default=None, help="DVC project (default: the current one)")
    plot.add_argument("--csv", default="plots/sweep/threshold_sensitivity.csv")
    plot.add_argument("--png", default="plots/sweep/threshold_sensitivity.png")
    return command


if __name__ == "__main__":
    run_stage(main, parser())
