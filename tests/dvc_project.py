"""Temporary git + DVC copies of the project, for tests that run real `dvc` commands."""

from __future__ import annotations

import copy
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
}


def deep_update(params: dict, overrides: dict) -> dict:
    """``params`` with ``overrides`` merged in, nested mappings key by key."""
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(params.get(key), dict):
            deep_update(params[key], value)
        else:
            params[key] = value
    return params


# Every stage in seconds: a teacher trained for a few steps on a sample of its labelled claims,
# rule negatives checked for grounding only (tests/test_rules_dvc.py runs the fluency check in a
# real `dvc repro`), rule rewrites instead of generation, three pairs, one generation, three
# fine-tuning steps on small batches, one dev evaluation, no zero-shot backbone pass over the
# benchmarks.
FAST_TRAINING = {
    "max_steps": 4,
    "eval_steps": 4,
    "max_length": 48,
    "logging_steps": 1,
    "per_device_batch_size": 8,
}
TEACHER_CLAIMS = 150
# The default teacher is the released judge (models/judge.dvc), whose objects live in the release
# store a copied project leaves out: the tests train their own and name it as EvoNLI's goal and
# the evaluated teacher.
FAST_TEACHER = {
    "train": True,
    "training": FAST_TRAINING,
    "labelled": {"check_covid": {"cap": TEACHER_CLAIMS}},
}
OWN_TEACHER = "models/teacher"
OWN_TEACHER_PARAMS = {
    "teacher": FAST_TEACHER,
    "evolve": {"settings": {"goal": {"classifier": {"model": OWN_TEACHER}}}},
    "evaluate": {"classifiers": {"teacher": OWN_TEACHER}},
}
FAST_NEGATIVES = {"filters": ["grounded"]}
FAST_SEARCH_SIZES = {"population_size": 2, "candidates_per_mutation": 3, "max_iterations": 1}
FAST_PIPELINE_PARAMS = deep_update(
    copy.deepcopy(OWN_TEACHER_PARAMS),
    {
        "negatives": FAST_NEGATIVES,
        "evolve": {
            "max_pairs": 3,
            "transformation": "rules",
            "settings": {"search": {"evolutionary": FAST_SEARCH_SIZES}},
        },
        "finetune": {
            "max_steps": 3,
            "eval_steps": 3,
            "max_length": 32,
            "logging_steps": 1,
            "per_device_batch_size": 8,
        },
        "evaluate": {"zero_shot": False, "max_examples": 40, "bootstrap_resamples": 200},
    },
)


def project_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    return [name for name in listed if (REPO / name).is_file()]


def run(command: list[str], cwd: Path, env: dict, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")
    return result


def dvc(project_dir: Path, env: dict, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "dvc", *args], project_dir, env, check)


def stale_stages(project_dir: Path) -> set[str]:
    """The stages ``dvc status`` names, asked in this process: the same answer as the command's
    (DVC's own ``Repo.status``), without seconds of imports for every question."""
    import contextlib

    from dvc.repo import Repo

    # from inside the project, as the command runs: DVC names stages relative to the working folder
    with contextlib.chdir(project_dir), Repo(str(project_dir)) as repo:
        return set(repo.status())


def project_environment(cache_root: Path) -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env["SCICON_CACHE_DIR"] = str(cache_root)
    env.update(GIT_IDENTITY)
    return env


# the repository's DVC store: a release's objects (up to 150 MB) that no test project reads, and
# the pointer to the released judge the demo pulls from it (a copy could not pull it)
RELEASE_STORE = "release/store/"
PULLED_FROM_STORE = ("models/judge.dvc",)


def copy_project(destination: Path, env: dict) -> Path:
    """The project's files without outputs, lock, metrics, release store or what is pulled from it,
    committed to a new git repository."""
    for name in project_files():
        if name in ("dvc.lock", *PULLED_FROM_STORE) or name.startswith(("metrics/", RELEASE_STORE)):
            continue
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)
    commit_all(destination, env, "copy", init=True)
    return destination


def commit_all(project_dir: Path, env: dict, message: str, init: bool = False) -> None:
    if init:
        run(["git", "init", "-q"], project_dir, env)
    run(["git", "add", "-A"], project_dir, env)
    run(["git", "commit", "-q", "-m", message], project_dir, env)


def update_params(project_dir: Path, overrides: dict) -> None:
    path = project_dir / "params.yaml"
    params = deep_update(yaml.safe_load(path.read_text()), overrides)
    path.write_text(yaml.safe_dump(params, sort_keys=False))


RELEASED = ("data/scicon", "models/scicon-classifier")


def file_digests(root: Path, outputs=RELEASED) -> dict[str, str]:
    digests = {}
    for output in outputs:
        for path in sorted((root / output).rglob("*")):
            if path.is_file():
                digests[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def copy_released(released, destination: Path) -> Path:
    """A copy of the ``released`` fixture project (conftest.py) to change: its workspace, git
    repository and DVC cache. DVC's scratch folder (.dvc/tmp: locks, the data index's cache) is
    left behind: another worker's DVC command may be writing it."""
    source = released[0]

    def scratch(folder: str, _) -> list[str]:
        return ["tmp"] if Path(folder) == source / ".dvc" else []

    shutil.copytree(source, destination, ignore=scratch)
    return destination
