"""The verifier stage: a three-way judge of plain pairs, trained once, resumable after a kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from scicon.classifier import ContradictionClassifier
from scicon.classifier_folder import UNTRAINED_MARKER
from scicon.train.lora import last_complete_checkpoint, resumable_checkpoints
from scicon.verifier.train import VerifierParams
from stages import verifier as stage
from tests.params_defaults import PARAMS_FILE, section
from tests.test_labelled import MNLI
from tests.test_labelled import ROOT as LABELLED_ROOT
from tests.tiny_models import save_tiny_bert

REPOSITORY = Path(__file__).resolve().parents[1]


def _params(tmp_path: Path, base: Path, steps: int) -> Path:
    params = yaml.safe_load(PARAMS_FILE.read_text())
    params["labelled_root"] = str(LABELLED_ROOT)
    params["verifier"].update(train=True, labelled={"mnli": MNLI}, dev_fraction=0.4)
    params["verifier"]["training"].update(
        base_model=str(base), max_steps=steps, eval_steps=5, logging_steps=1, max_length=32,
        per_device_batch_size=2, early_stopping_patience=None,
    )  # fmt: skip
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params))
    return path


def _argv(params: Path, out: Path, checkpoints: Path) -> list[str]:
    return [
        "--params", str(params),
        "--model", str(out / "verifier"),
        "--checkpoints", str(checkpoints),
        "--metrics", str(out / "headline.json"),
        "--figures", str(out / "verifier.json"),
        "--loss-plot", str(out / "loss.csv"),
        "--dev-plot", str(out / "dev.csv"),
    ]  # fmt: skip


def test_the_verifier_reads_plain_pairs_of_three_classes():
    with pytest.raises(ValidationError, match="verifier.edits.marked must be false"):
        section("verifier", VerifierParams, edits={"marked": True, "plain_copies": True})
    with pytest.raises(ValidationError, match="verifier.head must be three_way"):
        section("verifier", VerifierParams, head="entailment")


def test_an_untrained_verifier_says_so(tmp_path):
    params = yaml.safe_load(PARAMS_FILE.read_text())
    # off by default: the build's verifier is this untrained folder, so its check is off
    assert params["verifier"]["train"] is False and params["build"]["verifier"] == "models/verifier"
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    stage.main(stage.parser().parse_args(_argv(tmp_path / "params.yaml", tmp_path / "out", tmp_path / "ck")))
    assert (tmp_path / "out" / "verifier" / UNTRAINED_MARKER).is_file()
    assert json.loads((tmp_path / "out" / "headline.json").read_text())["trained"] is False


def test_a_killed_training_resumes_from_its_last_checkpoint(tmp_path):
    base = save_tiny_bert(tmp_path / "base", {0: "entailment", 1: "neutral", 2: "contradiction"})
    steps = 80
    params = _params(tmp_path, base, steps)
    out, checkpoints = tmp_path / "out", tmp_path / "checkpoints"
    command = [sys.executable, "-m", "stages.verifier", *_argv(params, out, checkpoints)]
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    running = subprocess.Popen(command, cwd=REPOSITORY, env=environment, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    phase = checkpoints / "general"
    while not any(phase.glob("checkpoint-*/trainer_state.json")):
        assert running.poll() is None, "the training ended before its first checkpoint"
        assert time.monotonic() < deadline, "no checkpoint within four minutes"
        time.sleep(0.02)
    time.sleep(0.2)  # the checkpoint's files are written; the run goes on
    running.send_signal(signal.SIGKILL)
    running.wait()
    assert not (out / "verifier" / "config.json").exists()  # killed before it saved a model

    stage.main(stage.parser().parse_args(_argv(params, out, checkpoints)))
    figures = json.loads((out / "verifier.json").read_text())
    training = figures["training"]
    assert 0 < training["resumed_from_step"] < steps
    assert training["steps"] == steps
    assert figures["throughput_last_phase"]["resumed_from_step"] == training["resumed_from_step"]
    assert figures["labels"] == {"0": "entailment", "1": "neutral", "2": "contradiction"}
    (probability,) = ContradictionClassifier(out / "verifier").contradiction_probabilities(
        [("Mortality was lower with the drug.", "The drug did not lower mortality.")]
    )
    assert 0.0 <= probability <= 1.0
    assert not checkpoints.exists()  # a finished training leaves no checkpoint behind


def test_checkpoints_of_other_inputs_or_code_are_never_resumed(tmp_path):
    folder = tmp_path / "checkpoints"
    resumable_checkpoints(folder, "digest-a")
    (folder / "checkpoint-2").mkdir()
    assert (resumable_checkpoints(folder, "digest-a") / "checkpoint-2").is_dir()
    assert not (resumable_checkpoints(folder, "digest-b") / "checkpoint-2").exists()
    (folder / "checkpoint-4").mkdir()
    (folder / "fingerprint.txt").unlink()  # a folder that cannot say what it was made from
    assert not (resumable_checkpoints(folder, "digest-b") / "checkpoint-4").exists()


def test_a_checkpoint_a_kill_cut_short_is_never_resumed(tmp_path):
    for step, state in ((5, '{"global_step": 5}'), (10, '{"global_step": 10}'), (15, '{"global_st')):
        (tmp_path / f"checkpoint-{step}").mkdir()
        (tmp_path / f"checkpoint-{step}" / "trainer_state.json").write_text(state)
    (tmp_path / "checkpoint-20").mkdir()  # its model was being written: no trainer state yet
    assert last_complete_checkpoint(tmp_path) == tmp_path / "checkpoint-10"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint-10", "checkpoint-5"]


def test_operating_points_give_precision_and_yield_of_what_the_gate_keeps():
    import numpy as np

    from scicon.verifier.__main__ import operating_points
    from tests.test_gate import _read

    reads = [
        _read(1, id="a", operator="negation_insert"),
        _read(0, id="b", operator="negation_insert", garbled=1),
        _read(1, id="c", source="evonli_accepted", generator="evonli", operator="custom"),
        _read(0, id="d", source="evonli_accepted", generator="evonli", operator="custom"),
    ]
    verifier = np.array([0.9, 0.8, 0.7, 0.1])
    garbled = np.array([0.1, 0.9, 0.2, 0.2])
    points = {
        (p["min_verifier"], p["max_garbled"]): p for p in operating_points(reads, verifier, garbled, 0.95)
    }
    everything = points[(0.0, 1.0)]
    assert everything["kept"] == 4 and everything["contradiction"]["share"] == 0.5
    assert everything["garbled"]["share"] == 0.25
    strict = points[(0.5, 0.5)]  # b is too garbled, d too doubtful
    assert strict["kept"] == 2 and strict["contradiction"]["share"] == 1.0
    assert strict["by_source"] == {
        "evonli": {"hits": 1, "of": 1, "share": 1.0, "interval": strict["by_source"]["evonli"]["interval"]},
        "rules_cross/negation_insert": {
            "hits": 1, "of": 1, "share": 1.0,
            "interval": strict["by_source"]["rules_cross/negation_insert"]["interval"],
        },
    }  # fmt: skip
    assert points[(0.9, 1.0)]["kept"] == 1
