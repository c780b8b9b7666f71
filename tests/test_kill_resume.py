"""Runs that survive a kill: each long stage's process is killed mid-run (SIGKILL, as the kernel's
out-of-memory killer or a lost machine would), then `dvc repro` runs it again in the same
project; its outputs must equal an uninterrupted run's, with nothing lost or repeated.

The training stages (teacher, finetune) restart from scratch, by design (docs/workflows.md):
their Trainer checkpoints live in a temporary folder that dies with the process, and DVC
removes a stage's outputs before it runs, so nothing half-written survives to be trusted.
The search (evolve, and every self-training round's evolve) resumes from its journal. The
evaluate stage writes its folders of plots and scores to staging folders moved in whole at the
end, so a kill mid-write leaves the previous outputs as they were.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import psutil
import pytest
import yaml

from tests.dvc_project import copy_released, dvc, stale_stages, update_params

pytestmark = pytest.mark.slow

KILL_TIMEOUT = 600  # seconds a stage may take to reach the point where it is killed


def locked_outs(project: Path, stage: str) -> dict[str, str]:
    """Each output of ``stage`` in dvc.lock -> its md5 (results only: reports and plots carry timings)."""
    lock = yaml.safe_load((project / "dvc.lock").read_text())["stages"][stage]
    return {
        out["path"]: out["md5"]
        for out in lock["outs"]
        if not out["path"].startswith(("reports/", "plots/", "metrics/"))
    }


def kill_stage_when(project: Path, env: dict, stage: str, module: str, ready) -> str:
    """`dvc repro --force --single-item <stage>` in a subprocess; once ``ready(output so far)``
    holds, SIGKILL the stage's own process (``python -m <module>``). Returns the output."""
    command = [sys.executable, "-m", "dvc", "repro", "--force", "--single-item", stage]
    process = subprocess.Popen(
        command,
        cwd=project,
        env={**env, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(process.stdout), daemon=True)
    reader.start()
    deadline = time.monotonic() + KILL_TIMEOUT
    killed = False
    while time.monotonic() < deadline and process.poll() is None:
        if ready("".join(output)):
            for child in psutil.Process(process.pid).children(recursive=True):
                if module in " ".join(child.cmdline()):
                    os.kill(child.pid, signal.SIGKILL)
                    killed = True
            if killed:
                break
        time.sleep(0.02)
    process.wait(timeout=KILL_TIMEOUT)
    reader.join(timeout=10)
    text = "".join(output)
    assert killed, f"the stage finished or never got ready before it could be killed:\n{text}"
    assert process.returncode != 0, text  # DVC saw the stage fail and recorded nothing
    return text


def search_results(path: Path) -> list[dict]:
    """The trace's records without the run-dependent count of cache hits."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return [{key: value for key, value in record.items() if key != "cache_hits"} for record in records]


def journal_records(path: Path) -> int:
    """Complete records: a line a kill tore off has no newline yet."""
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.fixture
def project(released, tmp_path) -> tuple[Path, dict]:
    _, env, _, _ = released
    copy = tmp_path / "project"
    copy_released(released, copy)
    return copy, env


@pytest.mark.parametrize(
    ("stage", "model_folder"), [("teacher", "models/teacher"), ("finetune", "models/scicon-classifier")]
)
def test_a_killed_training_stage_reruns_to_the_uninterrupted_result(project, stage, model_folder):
    project, env = project
    uninterrupted = locked_outs(project, stage)
    # killed after its first logged training step: the model folder is half made, if at all
    output = kill_stage_when(project, env, stage, f"stages.{stage}", lambda text: "'loss'" in text)
    assert "'loss'" in output
    status = json.loads(dvc(project, env, "status", "--json", stage).stdout)
    assert stage in status  # the interrupted run is not taken for a finished one
    rerun = dvc(project, env, "repro", stage).stdout
    assert f"Running stage '{stage}'" in rerun
    assert locked_outs(project, stage) == uninterrupted, rerun
    assert (project / model_folder / "calibration.json").is_file()


def _resumed_search(project: Path, env: dict, stage: str, trace: Path, accepted: Path) -> None:
    """The search killed after its journal holds some but not all pairs, then run again."""
    uninterrupted = locked_outs(project, stage)
    uninterrupted_traces = search_results(trace)
    total = journal_records(trace)
    assert total >= 4, "the fixture search needs several pairs to be killed halfway"
    trace.unlink()  # the journal is kept between runs (persist): start this run from nothing
    kill_stage_when(project, env, stage, "stages.evolve", lambda text: journal_records(trace) >= 1)
    done = journal_records(trace)
    assert 1 <= done < total, f"killed with {done} of {total} pairs journalled"
    rerun = dvc(project, env, "repro", stage)
    said = rerun.stdout + rerun.stderr  # the stage logs to stderr
    assert f"resuming: {done} of {total} searches already in" in said, said
    # the accepted pairs byte for byte; the trace's searches too, apart from how many of their
    # calls the cache answered (the killed run paid for some of them)
    assert (
        locked_outs(project, stage)[str(accepted.relative_to(project))]
        == uninterrupted[str(accepted.relative_to(project))]
    )
    assert search_results(trace) == uninterrupted_traces
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    keys = Counter((record["pair_id"], record["target_label"]) for record in records)
    assert len(keys) == total and set(keys.values()) == {1}  # none lost, none twice
    accepted_ids = [json.loads(line)["pair_id"] for line in accepted.read_text().splitlines()]
    assert len(accepted_ids) == len(set(accepted_ids))


# Pairs slow enough that a kill lands between two of them: one at a time, three iterations; five
# of them, so that the kill lands before the last.
SLOW_SEARCH = {
    "evolve": {"max_pairs": 5, "workers": 1, "settings": {"search": {"evolutionary": {"max_iterations": 3}}}}
}


def test_a_killed_search_resumes_from_its_journal_to_the_uninterrupted_result(project):
    project, env = project
    update_params(project, SLOW_SEARCH)
    dvc(project, env, "repro", "evolve")  # the uninterrupted run of these settings
    _resumed_search(
        project, env, "evolve", project / "data/evolve/trace.jsonl", project / "data/evolve/accepted.jsonl"
    )


def test_a_killed_self_training_round_resumes_its_own_search(project):
    project, env = project
    update_params(
        project, {**SLOW_SEARCH, "self_training": {"rounds": {"r2": {"teacher": "models/scicon-classifier"}}}}
    )
    dvc(project, env, "repro", "evolve_round@r2")
    round_folder = project / "data/rounds/r2/evolve"
    _resumed_search(
        project, env, "evolve_round@r2", round_folder / "trace.jsonl", round_folder / "accepted.jsonl"
    )


# The evaluate stage as it runs, with its CSV writer slowed down after each file so that a kill
# lands between two files of a folder being written.
SLOW_EVALUATE = """
import sys
import time

import stages.evaluate as stage
from scicon.stage import run_stage

write = stage.write_csv


def slow_write(path, rows, columns):
    write(path, rows, columns)
    print("wrote", path, flush=True)
    time.sleep(1.0)


stage.write_csv = slow_write
run_stage(stage.main, stage.parser(), sys.argv[1:])
"""
EVALUATE_OUTPUTS = ("plots/roc", "plots/scores", "metrics/evaluate.json", "reports/evaluate.json")


def contents(path: Path) -> dict[str, bytes]:
    """A file's bytes, or every file's bytes below a folder, by relative path."""
    if path.is_file():
        return {path.name: path.read_bytes()}
    return {
        str(file.relative_to(path)): file.read_bytes() for file in sorted(path.rglob("*")) if file.is_file()
    }


def test_a_killed_evaluate_leaves_the_previous_outputs_and_the_rerun_equals_an_uninterrupted_run(project):
    project, env = project
    previous = {name: contents(project / name) for name in EVALUATE_OUTPUTS}
    arguments = yaml.safe_load((project / "dvc.yaml").read_text())["stages"]["evaluate"]["cmd"].split()
    assert arguments[:3] == ["python", "-m", "stages.evaluate"]
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_EVALUATE, *arguments[3:]],
        cwd=project,
        env={**env, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    said = []
    for line in process.stdout:
        said.append(line)
        if line.startswith("wrote"):  # one file of the ROC folder written, the others not yet
            process.send_signal(signal.SIGKILL)
            break
    process.wait(timeout=KILL_TIMEOUT)
    assert process.returncode == -signal.SIGKILL, "".join(said)
    assert any((project / "plots" / ".roc.staging").glob("*.csv"))  # it was killed mid-write
    assert {name: contents(project / name) for name in EVALUATE_OUTPUTS} == previous
    assert stale_stages(project) == set()  # nothing DVC tracks was touched

    dvc(project, env, "repro", "--force", "--single-item", "evaluate")
    # the folders and the headline figures as the uninterrupted run wrote them (the report also
    # holds timings); the killed run's staging folder is gone
    for name in ("plots/roc", "plots/scores", "metrics/evaluate.json"):
        assert contents(project / name) == previous[name], name
    assert not list((project / "plots").glob(".*.staging"))
