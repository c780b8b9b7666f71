"""The DVC workflows of the README, for real, on copies of one released project: threshold
experiments, metrics diff, code changes, a second self-training round,
releasing SciCon to a remote and pulling or importing it elsewhere, byte for byte."""

from __future__ import annotations

import copy
import csv
import json
import sys
import time
from pathlib import Path

import pytest
import yaml

from scicon.docs import declared_params, params_keys, stages_reading
from scicon.params import load_thresholds
from scicon.sweep import GridPoint, experiment_commands
from tests.conftest import RELEASE_GROUP, serve_folder
from tests.dvc_project import (
    FAST_PIPELINE_PARAMS,
    RELEASED,
    TEACHER_CLAIMS,
    commit_all,
    copy_released,
    dvc,
    file_digests,
    run,
    stale_stages,
    update_params,
)

pytestmark = pytest.mark.slow


def fresh_clone(released, destination: Path) -> Path:
    project, env, _, _ = released
    run(["git", "clone", "-q", str(project), str(destination)], destination.parent, env)
    return destination


def test_the_release_holds_the_dataset_card_adapter_and_metrics(released):
    project, _, _, digests = released
    assert "data/scicon/README.md" in digests and "data/scicon/train.jsonl" in digests
    assert any(
        name.startswith("models/scicon-classifier/") and name.endswith(".safetensors") for name in digests
    )
    shown = json.loads(dvc(project, released[1], "metrics", "show", "--json").stdout)
    metrics = next(iter(shown.values()))["data"]
    assert {"metrics/build.json", "metrics/evaluate.json", "metrics/evolve.json"} <= set(metrics)


def test_pull_from_a_local_remote_restores_scicon_byte_for_byte(released, tmp_path):
    _, env, _, digests = released
    clone = fresh_clone(released, tmp_path / "clone")
    assert not (clone / "data/scicon").exists()
    dvc(clone, env, "pull", *RELEASED)
    assert file_digests(clone) == digests
    # the adapter matches the pulled dataset: nothing downstream of the release needs a rerun
    status = dvc(clone, env, "status", "finetune")
    assert "up to date" in status.stdout


def test_pull_through_an_http_remote_restores_scicon_byte_for_byte(released, tmp_path):
    _, env, remote, digests = released
    clone = fresh_clone(released, tmp_path / "clone")
    with serve_folder(remote) as url:
        dvc(clone, env, "remote", "add", "--local", "--default", "web", url)
        dvc(clone, env, "pull", *RELEASED)
    assert file_digests(clone) == digests
    # the HTTP remote is the user's own choice, written to config.local and never committed
    assert url not in (clone / ".dvc/config").read_text()


def test_dvc_import_brings_the_released_dataset_into_another_project(released, tmp_path):
    project, env, _, digests = released
    consumer = tmp_path / "consumer"
    consumer.mkdir()
    run(["git", "init", "-q"], consumer, env)
    dvc(consumer, env, "init", "-q")
    dvc(consumer, env, "import", str(project), "data/scicon", "--out", "scicon")
    imported = {
        name.replace("data/scicon", "scicon", 1): digest
        for name, digest in digests.items()
        if name.startswith("data/scicon/")
    }
    assert file_digests(consumer, outputs=("scicon",)) == imported
    assert "rev_lock" in (consumer / "scicon.dvc").read_text()


def test_a_threshold_experiment_reruns_evolve_and_downstream_only_and_metrics_diff_shows_it(
    released, tmp_path
):
    _, env, _, _ = released
    project = tmp_path / "experiment"
    copy_released(released, project)
    before = json.loads((project / "metrics/evolve.json").read_text())
    assert before["sim_pass"] is not None, "the fixture build scored no candidate"
    # rule edits keep the topic (P(same topic) about 0.98), so only a strict threshold rejects some
    rerun = dvc(project, env, "exp", "run", "--set-param", "sim=0.995")
    for unchanged in ("ingest", "pairs", "negatives"):
        assert f"Stage '{unchanged}' didn't change, skipping" in rerun.stdout
    for rerun_stage in ("evolve", "build"):
        assert f"Running stage '{rerun_stage}'" in rerun.stdout

    params = json.loads(dvc(project, env, "params", "diff", "--json").stdout)
    sim = params["params.yaml"]["sim"]
    assert (sim["old"], sim["new"]) == (0.5, 0.995)
    diff = json.loads(dvc(project, env, "metrics", "diff", "--json").stdout)
    evolve = diff["metrics/evolve.json"]
    assert evolve["sim_pass"]["new"] < evolve["sim_pass"]["old"]
    table = dvc(project, env, "metrics", "diff", "--precision", "3").stdout
    assert "sim_pass" in table
    # only results are metrics: no timing or cache counter moves between the two runs
    moved = [f"{path}:{key}" for path, keys in diff.items() for key in keys]
    assert not [key for key in moved if any(word in key for word in OPERATIONAL_WORDS)], moved

    # exp show: the headline is there, the breakdowns are in reports/, not in the table
    shown = json.loads(dvc(project, env, "exp", "show", "--json").stdout)
    columns = metric_columns(shown)
    assert {"metrics/evolve.json:asr", "metrics/evolve.json:sim_pass"} <= columns
    assert {"metrics/build.json:examples", "metrics/finetune.json:dev_roc_auc"} <= columns
    assert not [column for column in columns if any(word in column for word in BREAKDOWN_WORDS)], columns
    # the documented command fits 120 columns for the workspace and the experiment
    command = documented_exp_show()
    table = run(["bash", "-c", command], project, {**env, "COLUMNS": "400"}).stdout
    assert "asr" in table and "sim_pass" in table
    assert max(len(line) for line in table.splitlines()) <= 120, table


OPERATIONAL_WORDS = ("seconds", "cache", "calls", "resumed")
BREAKDOWN_WORDS = (
    "rejections",
    "by_operator",
    "per_operator",
    "backbone",
    "skipped",
    "calibration",
    "seconds",
)


def metric_columns(shown) -> set[str]:
    """``file:dotted.key`` of every metric in ``dvc exp show --json`` output."""
    columns = set()

    def walk(prefix: str, value) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{prefix}.{key}" if prefix else key, inner)
        else:
            columns.add(prefix)

    def visit(node) -> None:
        if isinstance(node, list):
            for item in node:
                visit(item)
        elif isinstance(node, dict):
            metrics = (node.get("data") or {}).get("metrics") if isinstance(node.get("data"), dict) else None
            for path, entry in (metrics or {}).items():
                for key, value in (entry.get("data") or {}).items():
                    walk(f"{path}:{key}", value)
            for inner in node.values():
                if isinstance(inner, (list, dict)):
                    visit(inner)

    visit(shown)
    return columns


def documented_exp_show() -> str:
    """The command docs/workflows.md gives under its ``<!-- exp-show -->`` marker."""
    text = (Path(__file__).resolve().parent.parent / "docs/workflows.md").read_text()
    block = text.split("<!-- exp-show -->", 1)[1].split("```", 2)[1]
    return block.removeprefix("bash").strip()


def test_queued_sweep_experiments_rerun_evolve_only_and_are_collected_into_the_plot(released, tmp_path):
    """`python -m scicon.sweep queue` + `dvc queue start`: each experiment runs in DVC's own
    temporary workspace, where its log and lock show the teacher restored, not trained (for
    `target` too), and `sweep plot` collects the finished ones."""
    _, env, _, _ = released
    project = tmp_path / "sweep"
    copy_released(released, project)
    teacher_lock = yaml.safe_load((project / "dvc.lock").read_text())["stages"]["teacher"]["outs"]
    # the project's own thresholds: the plot puts a point in the target panel only when its
    # sim and claim are the params.yaml values
    defaults = load_thresholds(project / "params.yaml")
    points = [GridPoint(defaults.model_copy(update={"target": target})) for target in (0.4, 0.1)]
    for command in experiment_commands(points):
        run([sys.executable, "-m", *command], project, env)
    dvc(project, env, "queue", "start", "--jobs", "1")
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        status = dvc(project, env, "queue", "status").stdout
        if not any(state in status for state in ("Queued", "Running")):
            break
        time.sleep(2)
    assert status.count("Success") == len(points), status
    for point in points:
        log = dvc(project, env, "queue", "logs", point.name).stdout
        assert "Stage 'teacher' didn't change, skipping" in log, log
        assert "Running stage 'teacher'" not in log and "Running stage 'evolve'" in log
        ref = experiment_ref(project, env, point.name)
        locked = yaml.safe_load(run(["git", "show", f"{ref}:dvc.lock"], project, env).stdout)
        assert locked["stages"]["teacher"]["outs"] == teacher_lock
        assert locked["stages"]["evolve"]["params"]["params.yaml"]["target"] == point.thresholds.target

    run([sys.executable, "-m", "scicon.sweep", "plot"], project, env)
    with (project / "plots/sweep/threshold_sensitivity.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    target_panel = [row for row in rows if row["threshold"] == "target"]
    assert [float(row["value"]) for row in target_panel] == [0.1, 0.4]
    assert {row["experiment"] for row in rows} == {point.name for point in points}
    assert all(int(row["pairs_tried"]) == FAST_PIPELINE_PARAMS["evolve"]["max_pairs"] for row in rows)
    png = (project / "plots/sweep/threshold_sensitivity.png").read_bytes()
    assert png.startswith(b"\x89PNG")


def experiment_ref(project: Path, env: dict, name: str) -> str:
    """The git ref DVC keeps a finished experiment under."""
    refs = run(["git", "for-each-ref", "--format=%(refname)", "refs/exps/"], project, env).stdout.split()
    matches = [ref for ref in refs if ref.endswith(f"/{name}")]
    assert len(matches) == 1, refs
    return matches[0]


def test_every_parameter_makes_exactly_the_stages_of_the_generated_table_stale(released, tmp_path):
    """docs/workflows.md's table, checked key by key against DVC's status in a reproduced project.

    A stage is stale when a value it reads differs, and the keys are disjoint blocks of
    params.yaml, so a change to several keys makes stale the union of what each makes stale. Two
    kinds of change check the whole table in a few dozen statuses rather than one per key: for
    each stage, every key the table says it does not read, changed at once, must leave it up to
    date (each 0 of the table); then keys whose rows share no stage, changed at once, must make
    exactly the stages of their rows stale (each 1: no other key of the change reads that stage,
    as the first kind showed). A check that fails is redone key by key (halving the keys of
    the first kind), to name the keys."""
    _, env, _, _ = released
    project = copy_released(released, tmp_path / "stale")
    params_file = project / "params.yaml"
    original = params_file.read_text()
    params = yaml.safe_load(original)
    declared = declared_params(project / "dvc.yaml")
    present = {
        stage
        for stage, body in yaml.safe_load((project / "dvc.yaml").read_text())["stages"].items()
        if "foreach" not in body
    }  # fmt: skip  (the fixture has no self-training rounds)
    assert stale_stages(project) == set()  # before any change
    # self_training.rounds defines round stages; no stage reads it
    keys = [key for key in params_keys(params) if key != "self_training.rounds"]
    table = {key: {stage for stage in stages_reading(key, declared) if stage in present} for key in keys}

    def stale_after(changed_keys: list[str]) -> set[str]:
        changed = copy.deepcopy(params)
        for key in changed_keys:
            section, _, inner = key.partition(".")
            holder = changed[section] if inner else changed
            name = inner or section
            holder[name] = every_leaf_changed(holder[name])
        params_file.write_text(yaml.safe_dump(changed, sort_keys=False))
        return stale_stages(project)

    mismatches = {}

    def key_by_key(changed_keys: list[str]) -> None:
        for key in changed_keys:
            if key not in mismatches and (stale := stale_after([key])) != table[key]:
                mismatches[key] = {"dvc status": sorted(stale), "table": sorted(table[key])}

    def making_stale(stage: str, changed_keys: list[str]) -> list[str]:
        """The keys of ``changed_keys`` that make ``stage`` stale, by halves."""
        if stage not in stale_after(changed_keys):
            return []
        if len(changed_keys) == 1:
            return changed_keys
        half = len(changed_keys) // 2
        return making_stale(stage, changed_keys[:half]) + making_stale(stage, changed_keys[half:])

    for stage in sorted(present):
        unread = [key for key in keys if stage not in table[key]]
        if stage in stale_after(unread):
            key_by_key(making_stale(stage, unread))
    for group in disjoint_rows(table):
        if stale_after(group) != set().union(*(table[key] for key in group)):
            key_by_key(group)
    params_file.write_text(original)
    assert not mismatches, mismatches
    # the in-process answer is the command's: checked once, on a change that makes stages stale
    holder = copy.deepcopy(params)
    holder["sim"] = every_leaf_changed(holder["sim"])
    params_file.write_text(yaml.safe_dump(holder, sort_keys=False))
    assert stale_stages(project) == set(json.loads(dvc(project, env, "status", "--json").stdout)) != set()
    params_file.write_text(original)
    # the thresholds: sim and claim leave the teacher alone
    assert "teacher" not in stages_reading("sim", declared) + stages_reading("claim", declared)


def disjoint_rows(table: dict[str, set[str]]) -> list[list[str]]:
    """The keys with a nonempty row of ``table`` (key -> stages), in groups whose rows share no
    stage: each key to the first group it fits, the widest rows first."""
    groups: list[tuple[list[str], set[str]]] = []
    for key in sorted((key for key in table if table[key]), key=lambda key: -len(table[key])):
        fits = next((group for group in groups if not group[1] & table[key]), None)
        if fits is None:
            groups.append(fits := ([], set()))
        fits[0].append(key)
        fits[1].update(table[key])
    return [keys for keys, _ in groups]


def every_leaf_changed(value):
    """The same structure with every leaf value different."""
    if isinstance(value, dict):
        return {key: every_leaf_changed(inner) for key, inner in value.items()} or {"changed": 1}
    if isinstance(value, list):
        return [*value, "changed"]
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if value is None:
        return "changed"
    return f"{value}-changed"


def test_a_code_change_recomputes_evolve_and_an_operational_key_reruns_nothing(released, tmp_path):
    _, env, _, _ = released
    copy = tmp_path / "code-change"
    copy_released(released, copy)  # reproduced on the fast settings: evolve searched 3 pairs once
    first = json.loads((copy / "reports/evolve.json").read_text())
    assert first["pairs_tried"] == 3 and first["resumed_pairs"] == 0

    # workers change how fast a run goes, not what it finds: nothing reruns
    unchanged = dvc(copy, env, "exp", "run", "evolve", "-S", "evolve.workers=2")
    assert "Stage 'evolve' didn't change, skipping" in unchanged.stdout

    # the same code, forced: every pair comes from the journal
    dvc(copy, env, "repro", "--force", "--single-item", "evolve")
    assert json.loads((copy / "reports/evolve.json").read_text())["resumed_pairs"] == 3

    # a code change on the search path: DVC reruns the stage and the stage searches again
    search = copy / "scicon/search/evolutionary.py"
    search.write_text(search.read_text() + "\n# a bug fix would go here\n")
    rerun = dvc(copy, env, "repro", "evolve")
    assert "Running stage 'evolve'" in rerun.stdout
    after = json.loads((copy / "reports/evolve.json").read_text())
    assert after["resumed_pairs"] == 0 and after["pairs_tried"] == 3


SEARCHED = FAST_PIPELINE_PARAMS["evolve"]["max_pairs"]  # pairs each round searches


def test_the_trained_teacher_judges_every_pair_and_a_self_training_round_runs_end_to_end(released, tmp_path):
    """The DAG with a teacher trained in it (the fast params'), EvoNLI against it, and a second
    round taught by the first round's student (foreach stages, no cycle): the round is added to
    the released project, so only its own stages run."""
    _, env, _, _ = released
    copy = tmp_path / "second-round"
    copy_released(released, copy)  # the whole DAG reproduced from nothing on the fast settings
    update_params(copy, {"self_training": {"rounds": {"r2": {"teacher": "models/scicon-classifier"}}}})
    commit_all(copy, env, "fast pipeline with a second round")
    reproduced = dvc(copy, env, "repro")
    for unchanged in ("pairs", "negatives", "teacher", "evolve", "finetune"):
        assert f"Stage '{unchanged}' didn't change, skipping" in reproduced.stdout
    for round_stage in ("evolve_round@r2", "build_round@r2", "finetune_round@r2", "evaluate_round@r2"):
        assert f"Running stage '{round_stage}'" in reproduced.stdout

    teacher = json.loads((copy / "reports/teacher.json").read_text())
    # the trained teacher reads the vendored Check-COVID claims only: no DAG pairs, no probe
    assert teacher["training"]["steps"] == 4 and teacher["labelled"] == {"check_covid": TEACHER_CLAIMS}
    assert teacher["probe"]["raw"] is None
    assert (copy / "models/teacher/calibration.json").is_file()
    evolve = json.loads((copy / "reports/evolve.json").read_text())
    # every pair was judged by the trained, calibrated teacher; a 4-step teacher is too close
    # to constant for acceptances to be guaranteed, so only that it ran is checked here
    assert evolve["pairs_tried"] == SEARCHED and evolve["errors"] == 0
    assert evolve["succeeded"] + evolve["failed"] + evolve["skipped"] == SEARCHED
    traces = [json.loads(line) for line in (copy / "data/evolve/trace.jsonl").read_text().splitlines()]
    assert all(t["original_confidence"] is not None for t in traces)
    assert {"similarity", "claim"} <= set(evolve["filters"])
    assert (copy / "models/scicon-classifier/calibration.json").is_file()  # the student can teach

    round2 = {name: json.loads((copy / f"reports/rounds/r2/{name}.json").read_text()) for name in (
        "evolve", "build", "finetune", "evaluate")}  # fmt: skip
    assert round2["evolve"]["pairs_tried"] == SEARCHED and round2["evolve"]["recipe"] == "custom"
    round_traces = (copy / "data/rounds/r2/evolve/trace.jsonl").read_text().splitlines()
    assert all(json.loads(line)["original_confidence"] is not None for line in round_traces)
    assert round2["finetune"]["steps"] == 3
    assert round2["evaluate"]["demo_biomed_nli"]["models"].keys() >= {"scicon", "r2"}

    again = dvc(copy, env, "repro")
    assert "Data and pipelines are up to date" in again.stdout


def test_the_release_group_conftest_schedules_names_tests_that_exist():
    """tests/conftest.py sends these tests with the release's build to one worker by name: a
    renamed test would silently leave the group and run DVC in the built project beside it."""
    names = {name for name in globals() if name.startswith("test_")}
    assert {nodeid.partition("::")[2] for nodeid in RELEASE_GROUP} <= names
    assert all(nodeid.startswith("tests/test_dvc_workflows.py::") for nodeid in RELEASE_GROUP)
