"""The classifier folder: stock peft loads it in a fresh process; one scorer reads any folder."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from scicon.calibration import Calibration
from scicon.classifier import ContradictionClassifier, contradiction_probabilities_from_logits
from scicon.classifier_folder import load_base_model, load_tokenizer, save_classifier
from scicon.errors import InputFormatError, InputNotFoundError
from scicon.train.lora import LABELS, lora_config
from scicon.train.params import FinetuneParams
from tests.params_defaults import section
from tests.tiny_models import save_tiny_bert

PAIRS = [
    ("drug lowered pressure in adults .", "drug did not reduce pressure in adults ."),
    ("drug improved pain in children .", "drug improved pain in children ."),
    ("drug lowered mortality in adults .", "drug raised mortality ."),
    ("pain .", "drug worsened pain in children and adults ."),
    ("drug .", "mortality ."),
]

STOCK_PEFT = """
import json, sys
import torch
from peft import AutoPeftModelForSequenceClassification
from transformers import AutoTokenizer

folder = sys.argv[1]
model = AutoPeftModelForSequenceClassification.from_pretrained(folder).eval()
tokenizer = AutoTokenizer.from_pretrained(folder)
pairs = json.loads(sys.argv[2])
encoded = tokenizer([a for a, _ in pairs], [b for _, b in pairs], padding=True, return_tensors="pt")
with torch.no_grad():
    probabilities = torch.softmax(model(**encoded).logits, dim=-1)
index = model.config.label2id["contradiction"]
print(json.dumps({"id2label": model.config.id2label, "p": probabilities[:, index].tolist()}))
"""


@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory) -> Path:
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def finetune_params(base: Path) -> FinetuneParams:
    return section("finetune", FinetuneParams, base_model=str(base), max_length=24, seed=3)


def trained_looking_adapter(base: Path):
    """A LoRA model whose adapter and head are far from their initial values, as after training."""
    import torch
    from peft import get_peft_model

    params = finetune_params(base)
    tokenizer = load_tokenizer(params.base_model)
    model = get_peft_model(load_base_model(params.base_model, tokenizer, LABELS), lora_config(params))
    generator = torch.Generator().manual_seed(11)
    with torch.no_grad():
        for weight in model.parameters():
            if weight.requires_grad:  # LoRA A/B and the classifier head copy
                weight.copy_(torch.randn(weight.shape, generator=generator) * 0.5)
    return model, tokenizer, params


@pytest.fixture(scope="module")
def saved(tiny_base, tmp_path_factory):
    """A classifier saved the way the finetune stage saves it, from a relative output path."""
    import os

    root = tmp_path_factory.mktemp("project")
    model, tokenizer, params = trained_looking_adapter(tiny_base)
    expected = ContradictionClassifier.from_model(
        model, tokenizer, params.max_length
    ).raw_contradiction_probabilities(PAIRS)
    here = Path.cwd()
    os.chdir(root)  # DVC runs the stage from the repository root with relative paths
    try:
        save_classifier(
            model,
            tokenizer,
            params.base_model,
            params.max_length,
            Path("models/classifier"),
            LABELS,
            params.seed,
        )
    finally:
        os.chdir(here)
    return root, root / "models" / "classifier", expected


def test_the_folder_loads_with_stock_peft_in_a_fresh_process(saved):
    root, folder, expected = saved
    adapter_config = json.loads((folder / "adapter_config.json").read_text())
    assert adapter_config["base_model_name_or_path"] == "models/classifier/base"
    run = subprocess.run(
        [sys.executable, "-c", STOCK_PEFT, "models/classifier", json.dumps(PAIRS)],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    stock = json.loads(run.stdout.strip().splitlines()[-1])
    assert stock["id2label"] == {"0": "non_contradiction", "1": "contradiction"}
    # the same probabilities as the model in memory before saving: adapter and head were restored
    assert np.allclose(stock["p"], expected, atol=1e-5)


def test_the_scorer_reads_the_folder_from_anywhere(saved, tmp_path):
    _, folder, expected = saved
    moved = tmp_path / "elsewhere" / "renamed"
    shutil.copytree(folder, moved)
    scorer = ContradictionClassifier(moved)
    assert scorer.max_length == 24 and scorer.label_index == 1 and scorer.calibration is None
    assert np.allclose(scorer.contradiction_probabilities(PAIRS), expected, atol=1e-6)
    assert scorer.raw_contradiction_probabilities([]) == []


def test_an_adapter_without_its_base_uses_the_run_record(saved, tiny_base, tmp_path):
    """Folders saved before the base was kept inside: base and labels come from the run record."""
    _, folder, expected = saved
    legacy = tmp_path / "legacy"
    shutil.copytree(folder, legacy)
    shutil.rmtree(legacy / "base")
    record = json.loads((legacy / "scicon_classifier.json").read_text())
    assert record["base_model"] == str(tiny_base)
    scorer = ContradictionClassifier(legacy)
    assert scorer.model.config.id2label == {0: "non_contradiction", 1: "contradiction"}
    assert np.allclose(scorer.contradiction_probabilities(PAIRS), expected, atol=1e-6)


def test_a_plain_classifier_folder_finds_its_contradiction_label_by_name(tmp_path):
    """An NLI cross-encoder: three labels, upper case, contradiction not at index 1."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    labels = {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}
    folder = save_tiny_bert(tmp_path / "nli", id2label=labels, seed=5)
    scorer = ContradictionClassifier(folder, batch_size=2)
    assert scorer.label_index == 2 and scorer.max_length == 64  # the position embeddings
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    encoded = tokenizer([a for a, _ in PAIRS], [b for _, b in PAIRS], padding=True, return_tensors="pt")
    with torch.no_grad():
        direct = torch.softmax(model(**encoded).logits, dim=-1)[:, 2].tolist()
    assert np.allclose(scorer.contradiction_probabilities(PAIRS), direct, atol=1e-6)
    assert ContradictionClassifier(folder, contradiction_label="0").label_index == 0
    with pytest.raises(InputFormatError, match=r"no label named 'refutes' among \['CONTRADICTION'"):
        ContradictionClassifier(folder, contradiction_label="refutes")


def test_a_calibration_beside_the_model_is_applied_and_raw_scores_stay_available(saved, tmp_path):
    _, folder, expected = saved
    calibrated = tmp_path / "calibrated"
    shutil.copytree(folder, calibrated)
    calibration = Calibration("sigmoid", coefficient=2.0, intercept=-1.0, examples=10)
    calibration.save(calibrated / "calibration.json")
    scorer = ContradictionClassifier(calibrated)
    raw = scorer.raw_contradiction_probabilities(PAIRS)
    assert np.allclose(raw, expected, atol=1e-6)
    assert np.allclose(scorer.contradiction_probabilities(PAIRS), calibration(raw))
    assert not np.allclose(scorer.contradiction_probabilities(PAIRS), raw)


def test_one_scorer_serves_several_threads(saved):
    _, folder, _ = saved
    scorer = ContradictionClassifier(folder, batch_size=2)
    sequential = scorer.contradiction_probabilities(PAIRS * 4)
    results: dict[int, list[float]] = {}

    def score(worker: int) -> None:
        results[worker] = scorer.contradiction_probabilities(PAIRS * 4)

    threads = [threading.Thread(target=score, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(np.allclose(results[worker], sequential) for worker in range(4))


def test_probabilities_from_logits():
    logits = np.array([[0.0, 0.0, np.log(2.0)], [5.0, -5.0, 0.0]])
    assert np.allclose(
        contradiction_probabilities_from_logits(logits, 2), [0.5, np.exp(0) / (np.exp(5) + np.exp(-5) + 1)]
    )
    # a single-logit head is read through a sigmoid
    assert np.allclose(
        contradiction_probabilities_from_logits(np.array([[0.0], [2.0]]), 0), [0.5, 1 / (1 + np.exp(-2))]
    )


def test_a_missing_folder_is_named(tmp_path):
    with pytest.raises(InputNotFoundError, match="nowhere: classifier folder not found"):
        ContradictionClassifier(tmp_path / "nowhere")


def test_the_tiny_bert_reads_its_own_words(tmp_path):
    # a stand-in whose tokenizer turns every word into [UNK] scores pairs by their length alone
    tokenizer = load_tokenizer(str(save_tiny_bert(tmp_path / "tiny")))
    ids = tokenizer("drug lowered pain .")["input_ids"]
    assert tokenizer.unk_token_id not in ids
    assert len(set(ids)) == len(ids)
