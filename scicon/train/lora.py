"""LoRA fine-tuning of a sequence-classification head: a positive class (1) vs not (0).

The classes are named by ``labels`` (default :data:`LABELS`, contradiction vs not; the
entailment judge names its own), and the saved config names them, so a scorer finds the
positive class by name.

Follows the peft sequence-classification recipe: a ``LoraConfig`` with task type
SEQ_CLS (which puts the new classifier head in ``modules_to_save``, so it is trained
and saved with the adapter), target modules as a parameter ("all-linear" is the
paper's "all attention + MLP projections", Table 7), sentence pairs tokenised as
pairs with truncation, dynamic padding per batch. Training runs through the
transformers ``Trainer``: gradient accumulation, cosine schedule with warmup,
weight decay, periodic dev evaluation (ROC-AUC of the contradiction probability)
and early stopping on it. 8-bit AdamW is used when bitsandbytes and a GPU are
present, plain AdamW otherwise.

The saved folder loads with stock peft in a fresh process
(``AutoPeftModelForSequenceClassification.from_pretrained(folder)``, with ``config.id2label``
naming the contradiction class) and with :class:`scicon.classifier.ContradictionClassifier`
from anywhere; see :func:`save_classifier` for how, and docs/evaluate.md for the trade-off.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import math
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from sklearn.metrics import roc_auc_score

from scicon.classifier import (
    BASE_FOLDER,
    CONTRADICTION,
    RUN_RECORD,
    ContradictionClassifier,
    contradiction_probabilities_from_logits,
)
from scicon.errors import InputFormatError, ParamsError
from scicon.io import staged_folder
from scicon.models import resolve_model
from scicon.records.dataset import Example
from scicon.sampling import seeded_sample
from scicon.train.params import FinetuneParams

log = logging.getLogger(__name__)

TRAIN_AUC_SAMPLE = 1000
LABELS = {0: "non_contradiction", 1: "contradiction"}
POSITIVE = 1  # the class whose probability is scored, calibrated and reported


@dataclass
class FinetuneResult:
    metrics: dict
    loss_curve: list[dict] = field(default_factory=list)  # step, epoch, loss, learning_rate
    dev_curve: list[dict] = field(default_factory=list)  # step, dev_roc_auc, dev_loss


def choose_optimizer(requested: str) -> str:
    """The Trainer ``optim`` name: 8-bit AdamW (paper Table 7) needs bitsandbytes and a GPU."""
    has_8bit = torch.cuda.is_available() and importlib.util.find_spec("bitsandbytes") is not None
    if requested == "adamw_8bit" and not has_8bit:
        raise ParamsError("finetune.optimizer=adamw_8bit needs a CUDA GPU and the bitsandbytes package")
    if requested == "adamw_8bit" or (requested == "auto" and has_8bit):
        return "adamw_bnb_8bit"
    return "adamw_torch"


def choose_precision(requested: str) -> dict:
    if requested == "auto":
        if torch.cuda.is_available() and torch.cuda.is_bf16_supported():
            return {"bf16": True}
        return {}
    if requested in ("bf16", "fp16") and not torch.cuda.is_available():
        raise ParamsError(f"finetune.precision={requested} needs a CUDA GPU; use auto or fp32 on CPU")
    return {"bf16": requested == "bf16", "fp16": requested == "fp16"}


def load_tokenizer(reference: str):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(resolve_model(reference))
    if tokenizer.pad_token is None:
        # decoder-only backbones (Llama, Mistral) ship without a pad token
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_base_model(reference: str, tokenizer, labels: dict[int, str] = LABELS):
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


def lora_config(params: FinetuneParams):
    from peft import LoraConfig, TaskType

    target = params.target_modules if isinstance(params.target_modules, str) else list(params.target_modules)
    return LoraConfig(
        task_type=TaskType.SEQ_CLS,
        r=params.lora_r,
        lora_alpha=params.lora_alpha,
        lora_dropout=params.lora_dropout,
        target_modules=target,
    )


def encode(examples: Sequence[Example], tokenizer, max_length: int):
    """A `datasets.Dataset` of tokenised sentence pairs with ``labels``."""
    from datasets import Dataset

    table = Dataset.from_dict(
        {
            "sentence1": [e.sentence1 for e in examples],
            "sentence2": [e.sentence2 for e in examples],
            "labels": [e.label for e in examples],
        }
    )
    return table.map(
        lambda batch: tokenizer(
            batch["sentence1"], batch["sentence2"], truncation=True, max_length=max_length
        ),
        batched=True,
        remove_columns=["sentence1", "sentence2"],
    )


def _roc_auc(labels: np.ndarray, scores: np.ndarray) -> float:
    return float(roc_auc_score(labels, scores)) if len(set(labels.tolist())) == 2 else float("nan")


def _compute_metrics(prediction) -> dict:
    scores = contradiction_probabilities_from_logits(np.asarray(prediction.predictions), POSITIVE)
    return {"roc_auc": _roc_auc(np.asarray(prediction.label_ids), scores)}


def finetune(
    train: Sequence[Example],
    dev: Sequence[Example],
    params: FinetuneParams,
    output_dir: Path,
    labels: dict[int, str] = LABELS,
) -> FinetuneResult:
    """Fine-tune ``params.base_model`` on ``train`` (LoRA or every weight, ``params.method``) and save
    the classifier in ``output_dir``, its classes named by ``labels`` (label 1 is the positive one)."""
    from peft import get_peft_model
    from transformers import (
        DataCollatorWithPadding,
        EarlyStoppingCallback,
        Trainer,
        TrainingArguments,
        set_seed,
    )

    if len({e.label for e in train}) < 2:
        raise InputFormatError("SciCon train split", "has only one label; a classifier needs both")
    set_seed(params.seed)
    if params.max_train_examples is not None and len(train) > params.max_train_examples:
        train = seeded_sample(train, params.max_train_examples, params.seed)
        log.info("finetune: using a seeded sample of %d training examples", len(train))
    use_dev = len({e.label for e in dev}) == 2
    if not use_dev:
        log.warning(
            "finetune: the dev split lacks one label (or is empty): no dev ROC-AUC, no early stopping"
        )

    tokenizer = load_tokenizer(params.base_model)
    model = load_base_model(params.base_model, tokenizer, labels)
    if params.method == "lora":
        model = get_peft_model(model, lora_config(params))
        trainable, total = model.get_nb_trainable_parameters()
    else:
        trainable = total = sum(parameter.numel() for parameter in model.parameters())
    log.info("finetune: %s, %d of %d parameters trainable", params.base_model, trainable, total)

    train_data = encode(train, tokenizer, params.max_length)
    dev_data = encode(dev, tokenizer, params.max_length) if use_dev else None
    effective_batch = params.per_device_batch_size * params.gradient_accumulation_steps
    steps_per_epoch = math.ceil(len(train_data) / effective_batch)
    planned_steps = params.max_steps or math.ceil(params.epochs * steps_per_epoch)
    eval_steps = min(params.eval_steps, planned_steps)
    optimizer = choose_optimizer(params.optimizer)

    with tempfile.TemporaryDirectory(prefix="scicon-finetune-") as checkpoints:
        arguments = TrainingArguments(
            output_dir=checkpoints,
            learning_rate=params.learning_rate,
            per_device_train_batch_size=params.per_device_batch_size,
            per_device_eval_batch_size=max(params.per_device_batch_size, 32),
            gradient_accumulation_steps=params.gradient_accumulation_steps,
            num_train_epochs=params.epochs,
            max_steps=params.max_steps or -1,
            lr_scheduler_type=params.lr_scheduler,
            warmup_steps=params.warmup_ratio,  # a float below 1 is a fraction of the steps
            weight_decay=params.weight_decay,
            optim=optimizer,
            logging_steps=params.logging_steps,
            logging_first_step=True,
            eval_strategy="steps" if use_dev else "no",
            eval_steps=eval_steps,
            save_strategy="steps" if use_dev else "no",
            save_steps=eval_steps,
            save_total_limit=2,
            save_only_model=True,
            load_best_model_at_end=use_dev,
            metric_for_best_model="roc_auc" if use_dev else None,
            greater_is_better=True,
            seed=params.seed,
            data_seed=params.seed,
            report_to="none",
            dataloader_num_workers=0,
            train_sampling_strategy=params.batching,
            **choose_precision(params.precision),
        )
        callbacks = []
        if use_dev and params.early_stopping_patience:
            callbacks.append(EarlyStoppingCallback(early_stopping_patience=params.early_stopping_patience))
        trainer = Trainer(
            model=model,
            args=arguments,
            train_dataset=train_data,
            eval_dataset=dev_data,
            data_collator=DataCollatorWithPadding(tokenizer),
            processing_class=tokenizer,
            compute_metrics=_compute_metrics if use_dev else None,
            callbacks=callbacks,
        )
        started = time.perf_counter()
        outcome = trainer.train()
        seconds = time.perf_counter() - started
        history = trainer.state.log_history
        best_step = _best_step(trainer)

    loss_curve = [
        {
            "step": entry["step"],
            "epoch": round(entry.get("epoch", 0.0), 4),
            "loss": round(entry["loss"], 5),
            "learning_rate": entry.get("learning_rate"),
        }
        for entry in history
        if "loss" in entry
    ]
    dev_curve = [
        {
            "step": entry["step"],
            "dev_roc_auc": round(entry["eval_roc_auc"], 5),
            "dev_loss": round(entry["eval_loss"], 5),
        }
        for entry in history
        if "eval_roc_auc" in entry
    ]
    # Training-set ROC-AUC shows whether the model fits; a seeded sample says as much as
    # scoring every example, at a fraction of the time on a CPU.
    train_sample = seeded_sample(train, TRAIN_AUC_SAMPLE, params.seed)
    positive = labels[POSITIVE]
    train_auc = score_examples_auc(model, tokenizer, train_sample, params.max_length, positive)
    dev_auc = score_examples_auc(model, tokenizer, dev, params.max_length, positive) if use_dev else None
    save_classifier(model, tokenizer, params, output_dir, labels)

    metrics = {
        "base_model": params.base_model,
        "train_examples": len(train),
        "dev_examples": len(dev),
        "steps": trainer.state.global_step,
        "planned_steps": planned_steps,
        "best_step": best_step,
        "stopped_early": bool(use_dev and trainer.state.global_step < planned_steps),
        "epochs": round(trainer.state.epoch or 0.0, 4),
        "effective_batch_size": effective_batch,
        "optimizer": optimizer,
        "trainable_parameters": int(trainable),
        "total_parameters": int(total),
        "train_loss_first": loss_curve[0]["loss"] if loss_curve else None,
        "train_loss_last": loss_curve[-1]["loss"] if loss_curve else None,
        "train_loss_mean": round(float(outcome.training_loss), 5),
        "train_roc_auc": round(train_auc, 4),
        "train_roc_auc_examples": len(train_sample),
        "train_seconds": round(seconds, 1),
        "seconds_per_step": round(seconds / max(trainer.state.global_step, 1), 3),
    }
    if dev_auc is not None:
        metrics["dev_roc_auc"] = round(dev_auc, 4)
    return FinetuneResult(metrics=metrics, loss_curve=loss_curve, dev_curve=dev_curve)


def _best_step(trainer) -> int | None:
    checkpoint = trainer.state.best_model_checkpoint
    if not checkpoint:
        return None
    return int(Path(checkpoint).name.rsplit("-", 1)[-1])


def save_classifier(
    model, tokenizer, params: FinetuneParams, output_dir: Path, labels: dict[int, str] = LABELS
) -> None:
    """The trained classifier, its tokenizer and a run record, replacing ``output_dir``.

    With ``method: full`` it is a plain model folder (any ``from_pretrained`` loads it). With
    LoRA it is the adapter with its trained head and the base model, and the folder loads
    with stock peft — ``AutoPeftModelForSequenceClassification.from_pretrained``
    builds the base from the adapter config's ``base_model_name_or_path`` and nothing else —
    so the base has to be a folder whose config names the labels: ``base/`` inside the
    classifier folder, recorded as ``<output_dir>/base`` exactly as ``output_dir`` was given.
    DVC runs stages from the repository root with relative paths, so the recorded path is
    the same in every clone (the folder's bytes do not depend on the machine) and resolves
    from the repository root; :class:`~scicon.classifier.ContradictionClassifier` reads
    ``base/`` from wherever the folder is. An ``embedded:`` reference or a machine's
    site-packages path would do neither. The cost is a copy of the base weights per
    classifier, which DVC's content-addressed cache stores once.
    """
    output_dir = Path(output_dir)
    record = {"base_model": params.base_model, "max_length": params.max_length, "labels": labels}
    with staged_folder(output_dir) as staging:
        if params.method == "full":
            # every weight was trained: a plain model folder, its config naming the labels
            model.save_pretrained(staging)
            tokenizer.save_pretrained(staging)
        else:
            _save_adapter(model, tokenizer, params, output_dir, staging, labels)
        (staging / RUN_RECORD).write_text(
            json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )


def _save_adapter(
    model, tokenizer, params: FinetuneParams, output_dir: Path, staging: Path, labels: dict[int, str]
) -> None:
    config = model.peft_config["default"]
    config.base_model_name_or_path = str(output_dir / BASE_FOLDER)
    # peft keeps module names in a set, written in hash-seed order: sorted, the same
    # training writes the same bytes, so DVC sees an unchanged model as unchanged
    for names in ("target_modules", "modules_to_save"):
        if isinstance(getattr(config, names, None), set | list | tuple):
            setattr(config, names, sorted(getattr(config, names)))
    # embeddings are not adapted (and the base path does not exist yet while staging)
    model.save_pretrained(staging, save_embedding_layers=False)
    tokenizer.save_pretrained(staging)
    _save_base(params, tokenizer, staging / BASE_FOLDER, labels)


def _save_base(params: FinetuneParams, tokenizer, folder: Path, labels: dict[int, str]) -> None:
    """The untouched base model with the labelled head config, as a plain model folder.

    Its classification head is never used (the adapter carries the trained one), but its
    initial weights are drawn from a fixed seed so that the saved bytes are reproducible.
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(params.seed)
        base = load_base_model(params.base_model, tokenizer, labels)
    base.save_pretrained(folder)


def score_examples_auc(
    model, tokenizer, examples: Sequence[Example], max_length: int, positive_label: str = CONTRADICTION
) -> float:
    """ROC-AUC of the in-memory model's P(``positive_label``) on ``examples``."""
    scorer = ContradictionClassifier.from_model(model, tokenizer, max_length, positive_label)
    scores = scorer.raw_contradiction_probabilities(
        [(e.sentence1, e.sentence2) for e in examples], progress="scoring"
    )
    return _roc_auc(np.array([e.label for e in examples]), np.array(scores))
