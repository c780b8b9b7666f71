"""The README's "Get the data": its three lines, run as written against a clone of the repository.

The lines are read verbatim from between ``<!-- get-data -->`` and ``<!-- end get-data -->``. The
first, ``pip install dvc datasets``, is not run (it needs a package index): the test checks instead
that the interpreter running it has both packages, and puts that interpreter's folder first on
``PATH``, so ``dvc`` and ``python`` are those. The other two run in bash with ``<repository>``
replaced by the path of a fresh ``git clone`` of this repository: ``dvc get`` reads the clone's
``release/scicon.dvc`` and copies the files from ``release/store``, the DVC remote inside it, and
``datasets`` loads what it fetched. Offline and in seconds: the clone is local, analytics are off,
and Hugging Face is told not to reach the network.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
_BLOCK = re.compile(r"<!-- get-data -->\n```bash\n(?P<lines>.*?)```\n<!-- end get-data -->", re.DOTALL)
INSTALL = "pip install dvc datasets"


def get_data_lines(text: str) -> list[str]:
    """The README's get-data lines, as written."""
    match = _BLOCK.search(text)
    assert match, "README.md has no ```bash block between <!-- get-data --> and <!-- end get-data -->"
    return match.group("lines").rstrip("\n").split("\n")


def test_the_readme_gets_the_data_in_three_lines():
    lines = get_data_lines(README.read_text(encoding="utf-8"))
    assert len(lines) == 3
    assert lines[0] == INSTALL
    assert lines[1].startswith("dvc get <repository> release/scicon")
    assert 'datasets.load_dataset("parquet"' in lines[2] or "datasets.load_dataset('parquet'" in lines[2]
    # the README says once what `<repository>` stands for
    said = "`<repository>`, here and in every `dvc get` and `dvc import`"
    assert said in README.read_text(encoding="utf-8")


@pytest.mark.timeout(300)
def test_the_readme_get_data_lines_run_against_a_clone(tmp_path):
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs git and a git checkout of the repository")
    install, *commands = get_data_lines(README.read_text(encoding="utf-8"))
    assert install == INSTALL
    for module in ("dvc", "datasets"):  # what the install line puts in place
        assert importlib.util.find_spec(module) is not None, f"{module} is not installed"

    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env.update(
        DVC_NO_ANALYTICS="1",
        HF_HOME=str(tmp_path / "hf"),
        HF_DATASETS_OFFLINE="1",
        HF_HUB_OFFLINE="1",
        GIT_TERMINAL_PROMPT="0",
    )
    repository = tmp_path / "repository"
    subprocess.run(["git", "clone", "-q", str(REPO), str(repository)], env=env, check=True, timeout=120)
    user = tmp_path / "user"
    user.mkdir()
    script = "\n".join(command.replace("<repository>", str(repository)) for command in commands)
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=user,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, f"{script}\n{result.stdout}\n{result.stderr}"

    fetched = user / "scicon"
    assert sorted(path.name for path in fetched.glob("*.parquet")) == [
        "dev.parquet",
        "test.parquet",
        "train.parquet",
    ]
    card = (fetched / "README.md").read_text(encoding="utf-8")
    header = yaml.safe_load(card.split("---")[1])
    counts = {split["name"]: split["num_examples"] for split in header["dataset_info"]["splits"]}
    printed = dict(re.findall(r"(train|dev|test): Dataset\(\{.*?num_rows: (\d+)", result.stdout, re.DOTALL))
    assert {split: int(rows) for split, rows in printed.items()} == counts
