"""A folder of outputs is replaced whole or not at all (scicon.io.staged_folder), also when the
writing process is killed: what the evaluate stage's plots and scores, the audit's blinded
files and a trained classifier rely on."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from scicon.io import staged_folder


def _files(folder):
    return {path.name: path.read_text() for path in folder.iterdir()}


def test_a_finished_write_replaces_the_folder_and_an_interrupted_one_leaves_it(tmp_path):
    target = tmp_path / "scores"
    target.mkdir()
    (target / "old.csv").write_text("previous run")
    with pytest.raises(KeyboardInterrupt), staged_folder(target) as staging:
        (staging / "half.csv").write_text("half")
        raise KeyboardInterrupt
    assert _files(target) == {"old.csv": "previous run"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores"]
    with staged_folder(target) as staging:
        (staging / "new.csv").write_text("this run")
    assert _files(target) == {"new.csv": "this run"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores"]


WRITER = """
import sys, time
from pathlib import Path
from scicon.io import staged_folder

with staged_folder(Path(sys.argv[1])) as staging:
    for number in range(1000):
        (staging / f"{number}.csv").write_text("new")
        if number == 5:
            print("writing", flush=True)
        time.sleep(0.01)
"""


def test_a_writer_killed_mid_write_leaves_the_previous_outputs_and_a_rerun_finishes(tmp_path):
    target = tmp_path / "plots"
    target.mkdir()
    (target / "roc.csv").write_text("previous run")
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE, text=True)
    assert writer.stdout.readline().strip() == "writing"
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    assert _files(target) == {"roc.csv": "previous run"}  # a staging folder may be left beside it
    with staged_folder(target) as staging:  # the next run clears the leftover and writes whole
        (staging / "roc.csv").write_text("this run")
    assert _files(target) == {"roc.csv": "this run"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plots"]
