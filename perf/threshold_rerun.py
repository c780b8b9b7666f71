"""Benchmark: a threshold experiment against the full run, measured in one run.

In a temporary copy of the project (its files without outputs, lock, metrics or reports)
with an empty call cache: `dvc repro` (what a fresh clone runs, setup excluded), a commit,
then `dvc exp run -S sim=0.7` (or the settings given). Prints both wall times, their
ratio, and the stages each command ran and skipped, so a threshold that retrains what it
does not touch shows up by name.

    python -m perf.threshold_rerun
    python -m perf.threshold_rerun --set claim=0.2 --keep /tmp/rerun
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

from perf.evolve_cost import benchmark_environment, commit_all, copy_project, timed

RAN = re.compile(r"Running stage '([^']+)'")
SKIPPED = re.compile(r"Stage '([^']+)' didn't change, skipping")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", dest="settings", action="append", metavar="KEY=VALUE",
                        help="the experiment's parameter change (repeatable; default sim=0.7)")  # fmt: skip
    parser.add_argument("--keep", help="keep the project copy in this folder")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    settings = args.settings or ["sim=0.7"]

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="scicon-threshold-rerun-"))
    project = folder / "project"
    copy_project(project)
    env = benchmark_environment(folder)
    commit_all(project, env, "benchmark copy")

    dvc = [sys.executable, "-m", "dvc"]
    full_seconds, full_log = timed([*dvc, "repro"], project, env)
    commit_all(project, env, "full run")
    experiment = [*dvc, "exp", "run", *[arg for setting in settings for arg in ("-S", setting)]]
    rerun_seconds, rerun_log = timed(experiment, project, env)

    figures = {
        "settings": settings,
        "full_run_seconds": round(full_seconds, 1),
        "experiment_seconds": round(rerun_seconds, 1),
        "ratio": round(rerun_seconds / full_seconds, 3),
        "full_run_stages": RAN.findall(full_log),
        "experiment_ran": RAN.findall(rerun_log),
        "experiment_skipped": SKIPPED.findall(rerun_log),
    }
    print(f"full dvc repro:            {figures['full_run_seconds']:8.1f} s")
    print(f"dvc exp run -S {' -S '.join(settings)}: {figures['experiment_seconds']:8.1f} s")
    print(f"ratio:                     {figures['ratio']:8.3f}")
    print(f"the experiment ran:     {', '.join(figures['experiment_ran'])}")
    print(f"the experiment skipped: {', '.join(figures['experiment_skipped'])}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
