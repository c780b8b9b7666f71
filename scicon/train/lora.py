"""LoRA fine-tuning of a sequence-classification head: a positive class (1) vs not (0), or more classes.

The classes are named by ``labels`` (default :data:`LABELS`, contradiction vs not; the
entailment judge names its own, two or three), and the saved config names them, so a scorer
finds a class by name. ``scored`` names the classes whose one-vs-rest ROC-AUC (their mean) is
the dev figure early stopping follows: the positive class of two, the classes a three-way
judge is read for.

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
from anywhere; see :func:`scicon.classifier_folder.save_classifier` for how, and
docs/evaluate.md for the trade-off.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import math
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from sklearn.metrics import roc_auc_score

from scicon.classifier import ContradictionClassifier, contradiction_probabilities_from_logits
from scicon.classifier_folder import load_base_model, load_tokenizer, save_classifier
from scicon.errors import InputFormatError, ParamsError
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


def _dev_metric(scored: Sequence[int]):
    """The Trainer's ``compute_metrics``: the mean one-vs-rest ROC-AUC of the ``scored`` classes."""

    def compute(prediction) -> dict:
        logits, truth = np.asarray(prediction.predictions), np.asarray(prediction.label_ids)
        aucs = [
            _roc_auc((truth == index).astype(int), contradiction_probabilities_from_logits(logits, index))
            for index in scored
        ]
        return {"roc_auc": float(np.mean(aucs))}

    return compute


def finetune(
    train: Sequence[Example],
    dev: Sequence[Example],
    params: FinetuneParams,
    output_dir: Path,
    labels: dict[int, str] = LABELS,
    scored: Sequence[int] = (POSITIVE,),
    checkpoints: Path | None = None,
) -> FinetuneResult:
    """Fine-tune ``params.base_model`` on ``train`` (LoRA or every weight, ``params.method``) and save
    the classifier in ``output_dir``, its classes named by ``labels``; the ROC-AUC figures are the
    mean one-vs-rest figure of the ``scored`` classes (of two: label 1, the positive one). With
    ``checkpoints`` the run saves its full state there every ``eval_steps`` and a rerun on the same
    inputs resumes from the last one (:func:`resumable_checkpoints`); without, checkpoints live in a
    temporary folder."""
    from transformers import set_seed

    set_seed(params.seed)
    train, use_dev = _training_examples(train, dev, params, scored)
    tokenizer = load_tokenizer(params.base_model)
    model, trainable, total = _model_to_train(params, tokenizer, labels)
    run = _train(model, tokenizer, train, dev if use_dev else None, params, scored, checkpoints, labels)
    loss_curve, dev_curve = _curves(run.history)
    # Training-set ROC-AUC shows whether the model fits; a seeded sample says as much as
    # scoring every example, at a fraction of the time on a CPU.
    train_sample = seeded_sample(train, TRAIN_AUC_SAMPLE, params.seed)
    train_auc = _mean_auc(model, tokenizer, train_sample, params.max_length, labels, scored)
    dev_auc = _mean_auc(model, tokenizer, dev, params.max_length, labels, scored) if use_dev else None
    save_classifier(model, tokenizer, params.base_model, params.max_length, output_dir, labels, params.seed)

    metrics = {
        "base_model": params.base_model,
        "train_examples": len(train),
        "dev_examples": len(dev),
        "steps": run.steps,
        "planned_steps": run.planned_steps,
        "best_step": run.best_step,
        "stopped_early": bool(use_dev and run.steps < run.planned_steps),
        "epochs": round(run.epochs, 4),
        "effective_batch_size": run.effective_batch,
        "optimizer": run.optimizer,
        "trainable_parameters": int(trainable),
        "total_parameters": int(total),
        "train_loss_first": loss_curve[0]["loss"] if loss_curve else None,
        "train_loss_last": loss_curve[-1]["loss"] if loss_curve else None,
        "train_loss_mean": round(run.mean_loss, 5),
        "train_roc_auc": round(train_auc, 4),
        "train_roc_auc_examples": len(train_sample),
        "train_seconds": round(run.seconds, 1),
        "seconds_per_step": round(run.seconds / max(run.steps - run.resumed_from_step, 1), 3),
        "resumed_from_step": run.resumed_from_step,
    }
    if dev_auc is not None:
        metrics["dev_roc_auc"] = round(dev_auc, 4)
    return FinetuneResult(metrics=metrics, loss_curve=loss_curve, dev_curve=dev_curve)


def _training_examples(
    train: Sequence[Example], dev: Sequence[Example], params: FinetuneParams, scored: Sequence[int]
) -> tuple[Sequence[Example], bool]:
    """The examples to train on (a seeded sample past ``max_train_examples``), and whether the
    dev split can be scored (it needs every scored class and another one beside it)."""
    if len({e.label for e in train}) < 2:
        raise InputFormatError("SciCon train split", "has only one label; a classifier needs two classes")
    if params.max_train_examples is not None and len(train) > params.max_train_examples:
        train = seeded_sample(train, params.max_train_examples, params.seed)
        log.info("finetune: using a seeded sample of %d training examples", len(train))
    present = {e.label for e in dev}
    use_dev = len(present) >= 2 and all(index in present for index in scored)
    if not use_dev:
        log.warning("finetune: the dev split lacks a class (or is empty): no dev ROC-AUC, no early stopping")
    return train, use_dev


def _model_to_train(params: FinetuneParams, tokenizer, labels: dict[int, str]):
    """The base model with its new head, wrapped in LoRA adapters unless every weight trains;
    with its trainable and total parameter counts."""
    from peft import get_peft_model

    model = load_base_model(params.base_model, tokenizer, labels)
    if params.method == "lora":
        model = get_peft_model(model, lora_config(params))
        trainable, total = model.get_nb_trainable_parameters()
    else:
        trainable = total = sum(parameter.numel() for parameter in model.parameters())
    log.info("finetune: %s, %d of %d parameters trainable", params.base_model, trainable, total)
    return model, trainable, total


@dataclass(frozen=True)
class TrainingRun:
    """What the Trainer did: its log history and the figures the metrics report."""

    history: list[dict]
    steps: int
    planned_steps: int
    best_step: int | None
    epochs: float
    effective_batch: int
    optimizer: str
    mean_loss: float
    seconds: float
    resumed_from_step: int = 0  # the checkpoint an interrupted run went on from (0: from the start)


CHECKPOINT_FINGERPRINT = "fingerprint.txt"
CHECKPOINT_PREFIX = "checkpoint"  # the Trainer's checkpoint-<step> folders


def training_fingerprint(
    params: FinetuneParams, train: Sequence[Example], dev: Sequence[Example] | None, labels: dict[int, str]
) -> str:
    """What a checkpoint was computed from: the settings, every example, the classes and the
    package's code. A checkpoint of any other inputs, or of older code, is never resumed."""
    digest = hashlib.sha256(params.model_dump_json().encode())
    digest.update(repr(sorted(labels.items())).encode())
    for name, examples in (("train", train), ("dev", dev or ())):
        digest.update(name.encode())
        for example in examples:
            digest.update(example.model_dump_json().encode())
    package = Path(__file__).resolve().parents[1]
    for source in sorted(package.rglob("*.py")):
        digest.update(str(source.relative_to(package)).encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()


def resumable_checkpoints(folder: Path, fingerprint: str) -> Path:
    """``folder`` ready to hold this run's checkpoints: kept when it holds checkpoints of the same
    inputs (the run resumes from its last), emptied when they were made from anything else."""
    record = folder / CHECKPOINT_FINGERPRINT
    if folder.exists() and not (record.is_file() and record.read_text().strip() == fingerprint):
        log.info("finetune: %s holds checkpoints of other inputs or code; starting afresh", folder)
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    record.write_text(fingerprint + "\n", encoding="utf-8")
    return folder


@contextlib.contextmanager
def _checkpoint_folder(
    checkpoints: Path | None, fingerprint: Callable[[], str]
) -> Iterator[tuple[str, str | None]]:
    """The Trainer's output folder and the checkpoint to resume from (None: start afresh)."""
    if checkpoints is None:
        with tempfile.TemporaryDirectory(prefix="scicon-finetune-") as scratch:
            yield scratch, None
        return
    folder = resumable_checkpoints(checkpoints, fingerprint())
    last = last_complete_checkpoint(folder)
    yield str(folder), str(last) if last is not None else None


def last_complete_checkpoint(folder: Path) -> Path | None:
    """The newest checkpoint a kill did not cut short; the ones it did are removed. The Trainer
    writes a checkpoint's trainer state last, so a checkpoint whose state reads is whole."""
    steps = sorted(
        (int(path.name.rsplit("-", 1)[1]), path)
        for path in folder.glob(f"{CHECKPOINT_PREFIX}-*")
        if path.is_dir() and path.name.rsplit("-", 1)[1].isdigit()
    )
    for _, path in reversed(steps):
        try:
            json.loads((path / "trainer_state.json").read_text(encoding="utf-8"))
            return path
        except (OSError, ValueError):
            log.info("finetune: %s was cut short; removing it", path)
            shutil.rmtree(path)
    return None


def _train(
    model,
    tokenizer,
    train: Sequence[Example],
    dev: Sequence[Example] | None,
    params: FinetuneParams,
    scored: Sequence[int],
    checkpoints: Path | None = None,
    labels: dict[int, str] = LABELS,
) -> TrainingRun:
    """Train ``model`` in place with the transformers Trainer (dev ROC-AUC, early stopping and the
    best checkpoint when ``dev`` is given); checkpoints in ``checkpoints`` (resumable) or in a
    temporary folder."""
    from transformers import DataCollatorWithPadding, EarlyStoppingCallback, Trainer

    train_data = encode(train, tokenizer, params.max_length)
    dev_data = encode(dev, tokenizer, params.max_length) if dev is not None else None
    effective_batch = params.per_device_batch_size * params.gradient_accumulation_steps
    planned_steps = params.max_steps or math.ceil(
        params.epochs * math.ceil(len(train_data) / effective_batch)
    )
    optimizer = choose_optimizer(params.optimizer)
    fingerprint = lambda: training_fingerprint(params, train, dev, labels)  # noqa: E731
    with _checkpoint_folder(checkpoints, fingerprint) as (output, resume_from):
        arguments = _training_arguments(
            params, output, dev is not None, planned_steps, optimizer, resumable=checkpoints is not None
        )
        callbacks = []
        if dev is not None and params.early_stopping_patience:
            callbacks.append(EarlyStoppingCallback(early_stopping_patience=params.early_stopping_patience))
        trainer = Trainer(
            model=model,
            args=arguments,
            train_dataset=train_data,
            eval_dataset=dev_data,
            data_collator=DataCollatorWithPadding(tokenizer),
            processing_class=tokenizer,
            compute_metrics=_dev_metric(scored) if dev is not None else None,
            callbacks=callbacks,
        )
        resumed_from_step = int(Path(resume_from).name.rsplit("-", 1)[-1]) if resume_from else 0
        if resume_from:
            log.info(
                "finetune: resuming from %s (step %d of %d)", resume_from, resumed_from_step, planned_steps
            )
        started = time.perf_counter()
        outcome = trainer.train(resume_from_checkpoint=resume_from)
        seconds = time.perf_counter() - started
        best_step = _best_step(trainer)
    return TrainingRun(
        history=trainer.state.log_history,
        steps=trainer.state.global_step,
        planned_steps=planned_steps,
        best_step=best_step,
        epochs=trainer.state.epoch or 0.0,
        effective_batch=effective_batch,
        optimizer=optimizer,
        mean_loss=float(outcome.training_loss),
        seconds=seconds,
        resumed_from_step=resumed_from_step,
    )


def _training_arguments(
    params: FinetuneParams,
    checkpoints: str,
    use_dev: bool,
    planned_steps: int,
    optimizer: str,
    resumable: bool = False,
):
    """The Trainer's settings; ``resumable`` saves the whole state (optimizer, scheduler, random
    generators) every ``eval_steps``, so that an interrupted run goes on where it stopped."""
    from transformers import TrainingArguments

    eval_steps = min(params.eval_steps, planned_steps)
    return TrainingArguments(
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
        save_strategy="steps" if use_dev or resumable else "no",
        save_steps=eval_steps,
        save_total_limit=2,
        save_only_model=not resumable,
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


def _curves(history: list[dict]) -> tuple[list[dict], list[dict]]:
    """The loss curve (step, epoch, loss, learning rate) and the dev curve (step, ROC-AUC, loss)."""
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
    return loss_curve, dev_curve


def _best_step(trainer) -> int | None:
    checkpoint = trainer.state.best_model_checkpoint
    if not checkpoint:
        return None
    return int(Path(checkpoint).name.rsplit("-", 1)[-1])


def _mean_auc(
    model,
    tokenizer,
    examples: Sequence[Example],
    max_length: int,
    labels: dict[int, str],
    scored: Sequence[int],
) -> float:
    """The mean one-vs-rest ROC-AUC of the ``scored`` classes on ``examples`` (one forward pass)."""
    scorer = ContradictionClassifier.from_model(model, tokenizer, max_length, labels[scored[0]])
    logits = scorer.logits([(e.sentence1, e.sentence2) for e in examples], progress="scoring")
    truth = np.array([e.label for e in examples])
    aucs = [
        _roc_auc((truth == index).astype(int), contradiction_probabilities_from_logits(logits, index))
        for index in scored
    ]
    return float(np.mean(aucs))
