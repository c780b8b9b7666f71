"""LoRA fine-tuning overfits a tiny fixture with a tiny random-weight BERT, and round-trips."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from scicon.classifier import ContradictionClassifier
from scicon.records.dataset import Example
from scicon.train.lora import choose_optimizer, choose_precision, finetune
from scicon.train.params import FinetuneParams
from tests.params_defaults import section
from tests.tiny_models import save_tiny_bert


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A 2-layer BERT with random weights and a word-level vocabulary, saved like a hub model."""
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def examples(split: str = "train") -> list[Example]:
    rows = []
    templates = [
        ("drug lowered pressure in adults .", "drug did not reduce pressure in adults .", 1),
        ("drug lowered pressure in adults .", "drug lowered pressure in adults .", 0),
        ("drug improved pain in children .", "drug worsened pain in children .", 1),
        ("drug improved pain in children .", "drug improved pain in children .", 0),
        ("drug lowered mortality in adults .", "drug raised mortality in adults .", 1),
        ("drug lowered mortality in adults .", "drug lowered mortality in adults .", 0),
        ("drug improved mortality in adults .", "drug did not reduce mortality in adults .", 1),
    ]
    for number, (first, second, label) in enumerate(templates):
        rows.append(
            Example(
                example_id=f"{split}-{number}",
                pmid=str(number),
                sentence1=first,
                sentence2=second,
                label=label,
                generator="fixture",
                split=split,
            )
        )
    return rows


def tiny_params(model_folder, **overrides) -> FinetuneParams:
    values = {
        "base_model": str(model_folder),
        "max_length": 32,
        "learning_rate": 1e-2,
        "per_device_batch_size": 8,
        "gradient_accumulation_steps": 1,
        "epochs": 1,
        "max_steps": 120,
        "lr_scheduler": "constant",
        "warmup_ratio": 0.0,
        "weight_decay": 0.0,
        "lora_r": 8,
        "lora_alpha": 16,
        "lora_dropout": 0.0,
        "target_modules": "all-linear",
        "eval_steps": 20,
        "logging_steps": 5,
        "early_stopping_patience": None,
        "seed": 1,
    } | overrides
    return section("finetune", FinetuneParams, **values)


@pytest.mark.slow
def test_lora_finetuning_overfits_a_tiny_fixture_and_round_trips(tiny_model, tmp_path):
    train, dev = examples("train"), examples("dev")
    output = tmp_path / "classifier"
    result = finetune(train, dev, tiny_params(tiny_model), output)

    losses = [entry["loss"] for entry in result.loss_curve]
    assert min(losses[-3:]) < 0.75 * losses[0]
    # LoRA over frozen random weights: loss falls clearly, but "near 1" needs more steps than CI time
    assert result.metrics["train_roc_auc"] >= 0.75, result.metrics
    assert result.metrics["steps"] == 120 and result.metrics["optimizer"] == "adamw_torch"
    assert [entry["step"] for entry in result.dev_curve] == [20, 40, 60, 80, 100, 120]
    assert result.metrics["trainable_parameters"] < result.metrics["total_parameters"]

    saved = {path.name for path in output.iterdir()}
    assert {"adapter_config.json", "adapter_model.safetensors", "scicon_classifier.json", "base"} <= saved
    adapter_config = json.loads((output / "adapter_config.json").read_text())
    # the base travels inside the folder, with the labels in its config (tests/test_classifier.py)
    assert adapter_config["base_model_name_or_path"] == str(output / "base")
    assert json.loads((output / "base" / "config.json").read_text())["id2label"]["1"] == "contradiction"
    # the same training writes the same bytes whatever the process's hash seed
    assert adapter_config["target_modules"] == sorted(adapter_config["target_modules"])

    scorer = ContradictionClassifier(output)
    scores = scorer.contradiction_probabilities([(e.sentence1, e.sentence2) for e in train])
    assert roc_auc_score([e.label for e in train], scores) == pytest.approx(
        result.metrics["train_roc_auc"], abs=1e-3
    )


@pytest.mark.slow
@pytest.mark.parametrize("batching", ["random", "group_by_length"])
def test_finetuning_is_seeded(tiny_model, tmp_path, batching):
    params = tiny_params(tiny_model, max_steps=10, eval_steps=10, batching=batching)
    first = finetune(examples(), examples("dev"), params, tmp_path / "a")
    second = finetune(examples(), examples("dev"), params, tmp_path / "b")
    assert np.allclose([e["loss"] for e in first.loss_curve], [e["loss"] for e in second.loss_curve])


@pytest.mark.slow
def test_the_saved_adapter_does_not_depend_on_the_hash_seed(tiny_model, tmp_path):
    """Same data, same seed, another process and another checkout (the base model at another
    path): the same bytes, so DVC sees no change."""
    script = (
        "import sys\nfrom pathlib import Path\n"
        "from tests.test_finetune import examples, tiny_params\nfrom scicon.train.lora import finetune\n"
        "params = tiny_params(Path(sys.argv[1]), max_steps=2, eval_steps=2)\n"
        "finetune(examples(), examples('dev'), params, Path('models/classifier'))\n"
    )
    repository = str(Path(__file__).resolve().parent.parent)
    for hash_seed in ("1", "2"):
        # each run in its own checkout-like folder, with the relative output path DVC passes
        (tmp_path / hash_seed).mkdir()
        base = shutil.copytree(tiny_model, tmp_path / hash_seed / "site-packages" / "base-model")
        subprocess.run(
            [sys.executable, "-c", script, str(base)],
            env={**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": repository},
            cwd=tmp_path / hash_seed,
            check=True,
            capture_output=True,
        )
    for saved in ("adapter_config.json", "adapter_model.safetensors", "base/model.safetensors", "README.md"):
        first, second = (tmp_path / seed / "models" / "classifier" / saved for seed in ("1", "2"))
        assert first.read_bytes() == second.read_bytes(), saved


@pytest.mark.slow
def test_early_stopping_on_dev(tiny_model, tmp_path):
    params = tiny_params(tiny_model, max_steps=200, eval_steps=5, early_stopping_patience=2)
    result = finetune(examples(), examples("dev"), params, tmp_path / "c")
    assert result.metrics["stopped_early"] and result.metrics["steps"] < 200
    assert result.metrics["best_step"] is not None


def test_cpu_choices():
    assert choose_optimizer("auto") == "adamw_torch"
    assert choose_precision("auto") == {}
    with pytest.raises(ValueError, match="bitsandbytes"):
        choose_optimizer("adamw_8bit")
    with pytest.raises(ValueError, match="GPU"):
        choose_precision("bf16")


def test_training_curves_are_written_one_csv_each_for_dvc_plots(tmp_path):
    from scicon.plots import write_training_curves
    from scicon.train.lora import FinetuneResult

    result = FinetuneResult(
        metrics={},
        loss_curve=[{"step": 1, "epoch": 0.5, "loss": 0.7, "learning_rate": 1e-4}],
        dev_curve=[{"step": 2, "dev_roc_auc": 0.6, "dev_loss": 0.69}],
    )
    write_training_curves(result, tmp_path / "loss.csv", tmp_path / "dev.csv")
    assert (tmp_path / "loss.csv").read_text() == "step,epoch,loss,learning_rate\n1,0.5,0.7,0.0001\n"
    assert (tmp_path / "dev.csv").read_text() == "step,dev_roc_auc,dev_loss\n2,0.6,0.69\n"
