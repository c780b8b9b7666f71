"""The classifier folder: what a trained judge or student is on disk, written and read here.

What the finetune stage saves is a LoRA adapter with its trained head, the tokenizer, the
base model in ``base/`` and a run record (:data:`RUN_RECORD`: base model, maximum length,
class names), or, when every weight was trained, a plain Hugging Face model folder; a
calibrated judge adds :data:`CALIBRATION_FILE`. Any plain sequence-classification folder
(an NLI cross-encoder) reads too. :class:`scicon.classifier.ContradictionClassifier` scores
from a folder read here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from scicon.errors import InputFormatError
from scicon.io import staged_folder, write_json
from scicon.models import resolve_model

RUN_RECORD = "scicon_classifier.json"  # written by the finetune stage: base model, max_length, labels
CALIBRATION_FILE = "calibration.json"  # a two-class judge's: its positive class
# what a judge folder holds instead of a model when its stage was told not to train one
UNTRAINED_MARKER = "untrained.json"
ADAPTER_CONFIG = "adapter_config.json"
BASE_FOLDER = "base"  # the base model, its config naming the labels, inside an adapter folder
# inputs longer than this are truncated when neither the run record nor the tokenizer says
FALLBACK_MAX_LENGTH = 512
# the run record's key saying the model learnt edits marked in sentence2 (scicon.textdiff.marked_edit)
EDIT_MARKING = "edit_marking"
BRACKETED = "bracketed"


def load_tokenizer(reference: str):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(resolve_model(reference))
    if tokenizer.pad_token is None:
        # decoder-only backbones (Llama, Mistral) ship without a pad token
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_base_model(reference: str, tokenizer, labels: dict[int, str]):
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(
        resolve_model(reference),
        num_labels=len(labels),
        id2label=labels,
        label2id={name: value for value, name in labels.items()},
    )
    if model.config.pad_token_id is None:
        model.config.pad_token_id = tokenizer.pad_token_id
    return model


def class_calibration_name(label: str) -> str:
    """The file of one class's own calibration: a three-way judge calibrates each class it is read
    for on its own."""
    return f"calibration-{label}.json"


def calibration_file(folder: Path, label: str) -> Path:
    """Where the calibration of class ``label`` is: the class's own file, else the folder's one
    (a two-class judge's, for its positive class)."""
    own = Path(folder) / class_calibration_name(label)
    return own if own.is_file() else Path(folder) / CALIBRATION_FILE


# ---- writing ----


def emptied_folder(output_dir: Path) -> Path:
    """``output_dir``, created or emptied: a model written earlier must not be read as this one."""
    output_dir.mkdir(parents=True, exist_ok=True)
    for stale in output_dir.iterdir():
        if stale.is_dir():
            shutil.rmtree(stale)
        else:
            stale.unlink()
    return output_dir


def untrained_reason(folder: str | Path) -> str | None:
    """Why ``folder`` holds no model, when a stage told not to train left it marked; else None."""
    marker = Path(folder) / UNTRAINED_MARKER
    if not marker.is_file():
        return None
    return json.loads(marker.read_text(encoding="utf-8")).get("why", "")


def write_untrained(output_dir: Path, why: str) -> None:
    """A judge folder that holds no model and says why: a scorer pointed at it stops with ``why``."""
    write_json(emptied_folder(output_dir) / UNTRAINED_MARKER, {"trained": False, "why": why})


def save_classifier(
    model, tokenizer, base_model: str, max_length: int, output_dir: Path, labels: dict[int, str], seed: int
) -> None:
    """The trained classifier, its tokenizer and a run record, replacing ``output_dir``.

    A model without adapters (every weight trained) is saved as a plain model folder (any
    ``from_pretrained`` loads it). A peft model is saved as the adapter with its trained
    head and the base model, and the folder loads with stock peft —
    ``AutoPeftModelForSequenceClassification.from_pretrained`` builds the base from the
    adapter config's ``base_model_name_or_path`` and nothing else — so the base has to be a
    folder whose config names the labels: ``base/`` inside the classifier folder, recorded
    as ``<output_dir>/base`` exactly as ``output_dir`` was given. DVC runs stages from the
    repository root with relative paths, so the recorded path is the same in every clone
    (the folder's bytes do not depend on the machine) and resolves from the repository root;
    :class:`~scicon.classifier.ContradictionClassifier` reads ``base/`` from wherever the
    folder is. An ``embedded:`` reference or a machine's site-packages path would do
    neither. The cost is a copy of the base weights per classifier, which DVC's
    content-addressed cache stores once.
    """
    from peft import PeftModel

    output_dir = Path(output_dir)
    record = {"base_model": base_model, "max_length": max_length, "labels": labels}
    with staged_folder(output_dir) as staging:
        if not isinstance(model, PeftModel):
            # every weight was trained: a plain model folder, its config naming the labels
            model.save_pretrained(staging)
            tokenizer.save_pretrained(staging)
        else:
            _save_adapter(model, tokenizer, base_model, output_dir, staging, labels, seed)
        (staging / RUN_RECORD).write_text(
            json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )


def _save_adapter(
    model, tokenizer, base_model: str, output_dir: Path, staging: Path, labels: dict[int, str], seed: int
) -> None:
    config = model.peft_config["default"]
    config.base_model_name_or_path = str(output_dir / BASE_FOLDER)
    # peft's model card names the base by the loaded model's own path (a site-packages path
    # that differs between checkouts): the recorded one instead, so the folder's bytes do not
    base = model.get_base_model()
    base.name_or_path = base.config._name_or_path = config.base_model_name_or_path
    # peft keeps module names in a set, written in hash-seed order: sorted, the same
    # training writes the same bytes, so DVC sees an unchanged model as unchanged
    for names in ("target_modules", "modules_to_save"):
        if isinstance(getattr(config, names, None), set | list | tuple):
            setattr(config, names, sorted(getattr(config, names)))
    # embeddings are not adapted (and the base path does not exist yet while staging)
    model.save_pretrained(staging, save_embedding_layers=False)
    tokenizer.save_pretrained(staging)
    _save_base(base_model, tokenizer, staging / BASE_FOLDER, labels, seed)


def _save_base(base_model: str, tokenizer, folder: Path, labels: dict[int, str], seed: int) -> None:
    """The untouched base model with the labelled head config, as a plain model folder.

    Its classification head is never used (the adapter carries the trained one), but its
    initial weights are drawn from a fixed seed so that the saved bytes are reproducible.
    """
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        base = load_base_model(base_model, tokenizer, labels)
    base.save_pretrained(folder)


def record_edit_marking(folder: Path) -> None:
    """Say in ``folder``'s run record that its model learnt edits marked in sentence2, so every
    scorer shows it edits that way (:func:`reads_edits`)."""
    record = read_run_record(folder)
    if not record:
        raise InputFormatError(str(folder / RUN_RECORD), "no run record to add the edit marking to")
    write_json(folder / RUN_RECORD, {**record, EDIT_MARKING: BRACKETED})


# ---- reading ----


def read_run_record(folder: Path) -> dict:
    path = folder / RUN_RECORD
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise InputFormatError(str(path), f"not valid JSON: {error.msg}", error.lineno) from error


def reads_edits(record: dict) -> bool:
    """Whether the model of a run record learnt edits marked in sentence2; a marking this code does
    not know stops, rather than feeding the model text unlike what it learnt."""
    marking = record.get(EDIT_MARKING)
    if marking not in (None, BRACKETED):
        raise InputFormatError(
            RUN_RECORD, f"{EDIT_MARKING} {marking!r} is not one this SciCon writes ({BRACKETED})"
        )
    return marking == BRACKETED


def load_model(folder: Path, record: dict):
    """The model of ``folder``: an adapter on its base, or a plain model.

    LoRA stays unmerged: merging changes the floats slightly, and scores that break the
    finetune stage's exact ties would make its reported ROC-AUC differ from evaluate's.
    """
    from transformers import AutoModelForSequenceClassification

    if not (folder / ADAPTER_CONFIG).is_file():
        return AutoModelForSequenceClassification.from_pretrained(folder)
    from peft import PeftConfig, PeftModel

    base_folder = folder / BASE_FOLDER
    if (base_folder / "config.json").is_file():
        base = AutoModelForSequenceClassification.from_pretrained(base_folder)
    else:
        # an adapter without its base (saved elsewhere, or by an older SciCon): the base
        # named in the adapter config, labelled from the run record when there is one
        reference = record.get("base_model") or PeftConfig.from_pretrained(folder).base_model_name_or_path
        labels = {int(k): v for k, v in record.get("labels", {}).items()}
        extra = {"num_labels": len(labels), "id2label": labels} if labels else {}
        if labels:
            extra["label2id"] = {name: index for index, name in labels.items()}
        base = AutoModelForSequenceClassification.from_pretrained(resolve_model(reference), **extra)
    return PeftModel.from_pretrained(base, folder)


def max_length_of(record: dict, tokenizer, config) -> int:
    if record.get("max_length"):
        return int(record["max_length"])
    candidates = [
        value
        for value in (
            getattr(tokenizer, "model_max_length", None),
            getattr(config, "max_position_embeddings", None),
        )
        if isinstance(value, int) and 0 < value < 1_000_000
    ]
    return min(candidates) if candidates else FALLBACK_MAX_LENGTH
