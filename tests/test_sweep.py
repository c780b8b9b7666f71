"""The appendix-C threshold sweep: its grid, the commands it queues and how results become panels."""

from __future__ import annotations

import pytest

import scicon.sweep as sweep
from scicon.dataset.build import taxonomy_plot_rows
from scicon.params import Thresholds
from scicon.sweep import (
    SWEEP_VALUES,
    GridPoint,
    experiment_commands,
    plot_sweep,
    results_from_experiments,
    sweep_grid,
    sweep_rows,
)

DEFAULTS = Thresholds(sim=0.5, claim=0.1, target=0.4)


def exp_row(name: str, sim: float, claim: float, target: float, succeeded: int, **extra) -> dict:
    """A row as `dvc.api.exp_show()` returns it."""
    return {
        "Experiment": name,
        "rev": "abc1234",
        "State": "Success",
        "sim": sim,
        "claim": claim,
        "target": target,
        "pairs_tried": 10,
        "accepted": succeeded,
        "asr": succeeded / 10,
        "asr_ci_low": max(0.0, succeeded / 10 - 0.2),
        "asr_ci_high": min(1.0, succeeded / 10 + 0.2),
        "sim_pass": 0.8,
        "claim_pass": 0.95,
        "target_pass": 0.1,
        **extra,
    }


def test_grid_varies_one_threshold_at_a_time_and_shares_the_default_point():
    points = sweep_grid(DEFAULTS)
    assert len(points) == 3 * 5 - 2  # the all-defaults point appears in every panel, once
    assert len({point.name for point in points}) == len(points)
    for point in points:
        differing = [
            k for k in ("sim", "claim", "target") if getattr(point.thresholds, k) != getattr(DEFAULTS, k)
        ]
        assert len(differing) <= 1
    assert sorted(
        p.thresholds.sim for p in points if p.thresholds.claim == 0.1 and p.thresholds.target == 0.4
    ) == [*SWEEP_VALUES["sim"]]


def test_experiment_commands_queue_the_evolve_stage_with_every_threshold_and_extra_settings():
    point = GridPoint(DEFAULTS.model_copy(update={"sim": 0.2}))
    (queued,) = experiment_commands([point], ["evolve.max_pairs=150"])
    assert queued == [
        "dvc", "exp", "run", "--queue", "--name", "sweep-sim0.2-claim0.1-target0.4", "evolve",
        "--set-param", "sim=0.2", "--set-param", "claim=0.1", "--set-param", "target=0.4",
        "--set-param", "evolve.max_pairs=150",
    ]  # fmt: skip


def test_results_keep_finished_sweep_experiments_and_resolve_prefixed_columns():
    rows = [
        {"Experiment": "workspace", "sim": 0.5},
        exp_row("sweep-a", 0.5, 0.1, 0.4, 3),
        exp_row("sweep-queued", 0.2, 0.1, 0.4, 0, State="Queued"),
        exp_row("other-experiment", 0.2, 0.9, 0.4, 1),
        {**exp_row("sweep-b", 0.2, 0.1, 0.4, 0), "asr": None, "metrics/evolve.json:asr": 0.0},
        {"Experiment": "sweep-failed-early", "State": "Success", "sim": 0.8, "asr": "-"},
        # a column where some experiments lack the value comes back as text
        {**exp_row("sweep-c", "0.8", "0.1", "0.4", 0), "pairs_tried": "10", "asr": "None"},
    ]  # fmt: skip
    results = results_from_experiments(rows)
    assert [r.experiment for r in results] == ["sweep-a", "sweep-b", "sweep-c"]
    assert results[1].thresholds == Thresholds(sim=0.2, claim=0.1, target=0.4)
    assert results[1].metrics["attack_success_rate"] == 0.0
    assert results[2].thresholds.sim == 0.8 and results[2].metrics["pairs_tried"] == 10
    assert results[2].metrics["attack_success_rate"] is None


def test_rows_put_each_experiment_in_the_panel_of_the_threshold_it_changes():
    results = results_from_experiments(
        [
            exp_row("sweep-default", 0.5, 0.1, 0.4, 3),
            exp_row("sweep-sim", 0.8, 0.1, 0.4, 1),
            exp_row("sweep-target", 0.5, 0.1, 0.1, 6),
            exp_row("sweep-two-changed", 0.8, 0.1, 0.1, 9),  # belongs to no panel
        ]
    )
    rows = sweep_rows(results, DEFAULTS)
    panels = {(row["threshold"], row["value"]): row for row in rows}
    assert set(panels) == {("sim", 0.5), ("sim", 0.8), ("claim", 0.1), ("target", 0.1), ("target", 0.4)}
    assert panels[("sim", 0.8)]["pass_rate"] == 0.8  # sim_pass
    assert panels[("claim", 0.1)]["pass_rate"] == 0.95 and panels[("claim", 0.1)]["is_default"]
    assert panels[("target", 0.1)]["attack_success_rate"] == pytest.approx(0.6)
    assert not panels[("target", 0.1)]["is_default"]


def test_plot_writes_a_png_with_an_empty_panel_where_nothing_finished(tmp_path):
    results = results_from_experiments(
        [exp_row("sweep-default", 0.5, 0.1, 0.4, 3), exp_row("sweep-s", 0.2, 0.9, 0.4, 1)]
    )
    rows = [row for row in sweep_rows(results, DEFAULTS) if row["threshold"] != "claim"]
    path = tmp_path / "plots" / "sweep.png"
    plot_sweep(rows, DEFAULTS, path)
    assert path.read_bytes().startswith(b"\x89PNG") and path.stat().st_size > 10_000
    assert list(tmp_path.joinpath("plots").iterdir()) == [path]


def test_taxonomy_plot_rows_list_each_generators_types_it_produced_largest_first():
    rows = taxonomy_plot_rows({"rules": {"scalar": 0.25, "negation_polarity": 0.75, "spatial": 0.0}})
    assert [(row["generator_type"], row["share"]) for row in rows] == [
        ("rules: negation_polarity", 0.75),
        ("rules: scalar", 0.25),
    ]


def test_queue_queues_the_whole_grid_with_the_extra_settings(monkeypatch, tmp_path):
    params = tmp_path / "params.yaml"
    params.write_text("sim: 0.5\nclaim: 0.1\ntarget: 0.4\n", encoding="utf-8")
    executed: list[list[str]] = []
    monkeypatch.setattr(sweep, "_run", executed.append)
    sweep.main(sweep.parser().parse_args(["--params", str(params), "queue", "-S", "evolve.max_pairs=9"]))
    assert len(executed) == 13
    assert all("--queue" in c and c[-1] == "evolve.max_pairs=9" for c in executed)
