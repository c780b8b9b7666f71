"""Plot data for `dvc plots`: small CSV files with one header row, written atomically."""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from typing import Protocol

from scicon.io import atomic_open


def write_csv(path: str | os.PathLike, rows: Sequence[dict], fields: Sequence[str]) -> None:
    with atomic_open(path) as handle:
        writer = csv.DictWriter(handle, fieldnames=list(fields), extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


class TrainingCurves(Protocol):
    """What a training run reports per step (:class:`scicon.train.lora.FinetuneResult`)."""

    loss_curve: Sequence[dict]  # step, epoch, loss, learning_rate per logged step
    dev_curve: Sequence[dict]  # step, dev_roc_auc, dev_loss per dev evaluation


def write_training_curves(
    result: TrainingCurves, loss_plot: str | os.PathLike, dev_plot: str | os.PathLike
) -> None:
    """The training-loss and dev ROC-AUC curves of a training stage (teacher, entailment,
    finetune), one CSV each (``--loss-plot``, ``--dev-plot``)."""
    write_csv(loss_plot, result.loss_curve, ("step", "epoch", "loss", "learning_rate"))
    write_csv(dev_plot, result.dev_curve, ("step", "dev_roc_auc", "dev_loss"))
