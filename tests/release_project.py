"""A tiny DVC project shaped like SciCon's release: one stage writing the dataset folder
(Parquet splits and a card), a judge folder, and the outputs DVC keeps in git (a report, a
metric, a plot), with the repository's own ``.dvc/config`` and ``release/`` project. It
reproduces in about a second, so the release command and the storage servers are tested on
it; tests/test_dvc_workflows.py releases the real pipeline."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import yaml

from tests.dvc_project import REPO, commit_all, dvc, run

MAKE = """\
import json
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

params = yaml.safe_load(open("params.yaml"))
size = params["size"]
dataset = pathlib.Path("data/scicon")
dataset.mkdir(parents=True, exist_ok=True)
for split in ("train", "dev", "test"):
    rows = [f"{split} sentence {i} of {size}" for i in range(size)]
    table = pa.table({"sentence1": rows, "sentence2": rows[::-1], "label": [i % 2 for i in range(size)]})
    pq.write_table(table, dataset / f"{split}.parquet")
(dataset / "README.md").write_text(f"# tiny SciCon\\n\\n{size} pairs per split\\n")
judge = pathlib.Path(params["evolve"]["settings"]["goal"]["classifier"]["model"])
judge.mkdir(parents=True, exist_ok=True)
# judge weights, in shards: enough files and bytes that a push can be interrupted half-way
for shard in range(params["shards"]):
    weights = shard.to_bytes(4, "big") + bytes(range(256)) * 4 * params["weight_kib"]
    (judge / f"model-{shard:05d}.safetensors").write_bytes(weights)
(judge / "config.json").write_text(json.dumps({"size": size}))
for folder in ("reports", "metrics", "plots"):
    pathlib.Path(folder).mkdir(exist_ok=True)
pathlib.Path("reports/build.json").write_text(json.dumps({"size": size, "rows": 3 * size}))
pathlib.Path("metrics/build.json").write_text(json.dumps({"examples": 3 * size}))
rows = "".join(f"{split},{size}\\n" for split in ("train", "dev", "test"))
pathlib.Path("plots/build.csv").write_text("split,rows\\n" + rows)
"""

DVC_YAML = {
    "stages": {
        "build": {
            "cmd": f"{sys.executable} make.py",
            "deps": ["make.py"],
            "params": ["size", "shards", "weight_kib", "evolve.settings.goal.classifier.model"],
            "outs": ["data/scicon", "models/entailment", {"reports/build.json": {"cache": False}}],
            "metrics": [{"metrics/build.json": {"cache": False}}],
            "plots": [{"plots/build.csv": {"cache": False}}],
        }
    }
}
PARAMS = {
    "size": 4,
    "shards": 1,
    "weight_kib": 16,
    "evolve": {"settings": {"goal": {"classifier": {"model": "models/entailment"}}}},
}
RELEASED = ("data/scicon", "models/entailment")


def release_environment(env: dict) -> dict:
    """``env`` able to run ``python -m scicon.release`` from a project outside the repository."""
    return {**env, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))}


def make_project(folder: Path, env: dict) -> Path:
    """The tiny project, reproduced and committed, with the repository's DVC configuration: its
    default remote is the in-repository store ``release/store``."""
    folder.mkdir(parents=True)
    (folder / "make.py").write_text(MAKE)
    (folder / "dvc.yaml").write_text(yaml.safe_dump(DVC_YAML, sort_keys=False))
    (folder / "params.yaml").write_text(yaml.safe_dump(PARAMS, sort_keys=False))
    run(["git", "init", "-q", "-b", "main"], folder, env)
    dvc(folder, env, "init", "-q")
    for name in (".dvc/config", "release/.dvc/config", "release/.dvc/.gitignore", "release/.dvcignore"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, folder / name)
    dvc(folder, env, "repro")
    commit_all(folder, env, "tiny SciCon")
    return folder


def release(project: Path, env: dict, *args: str, check: bool = True):
    return run([sys.executable, "-m", "scicon.release", *args], project, release_environment(env), check)


def set_params(project: Path, **values) -> None:
    path = project / "params.yaml"
    params = yaml.safe_load(path.read_text())
    params.update(values)
    path.write_text(yaml.safe_dump(params, sort_keys=False))


def documented(page: Path, name: str) -> str:
    """The code block under ``<!-- release: NAME -->`` in ``page``, without its fence: the
    release's documented commands, which the tests run as written."""
    block = page.read_text(encoding="utf-8").split(f"<!-- release: {name} -->", 1)[1]
    return block.split("```", 2)[1].split("\n", 1)[1]
