"""Train the entailment judge on labelled NLI, calibrate it on held-out premises, report it.

The data are the teacher's labelled sets (:func:`scicon.labelled.candidates.labelled_candidates`)
with entailment as the positive class; the held-out split is grouped by the loader's group
(the premise or the document), so no premise is on both sides. Sentence order is kept:
entailment is directional (evidence first, claim second), unlike contradiction, whose
training data has half its pairs swapped.

Training is the finetune stage's, with the classes named ``non_entailment`` / ``entailment``
in the saved config; calibration (``entailment.training.calibration``) is fitted on the
held-out split and saved as ``calibration.json``. The metrics are the teacher's held-out
figures: raw and cross-fitted calibrated ROC-AUC, Brier score, log loss and ECE, and per
labelled set its examples and mean calibrated P(entailment) per label.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scicon.calibration import calibration_report
from scicon.classifier import ENTAILMENT
from scicon.classifier_folder import UNTRAINED_MARKER
from scicon.dataset.build import BuiltDataset, build_dataset
from scicon.entailment.params import EntailmentParams
from scicon.errors import InputFormatError
from scicon.labelled.candidates import labelled_candidates, weighted
from scicon.teacher.train import TeacherResult, cross_fitted, held_out_half, source_figures

log = logging.getLogger(__name__)

ENTAILMENT_LABELS = {0: f"non_{ENTAILMENT}", 1: ENTAILMENT}
SECTION = "entailment"


@dataclass
class EntailmentData:
    dataset: BuiltDataset  # train and dev splits
    labelled: dict[str, int]  # rows per labelled set


def entailment_data(params: EntailmentParams, labelled_root: str | None) -> EntailmentData:
    candidates, counts = labelled_candidates(params, labelled_root, positive=ENTAILMENT, section=SECTION)
    dataset = build_dataset(
        candidates, dev_fraction=params.dev_fraction, test_fraction=0.0, seed=params.seed, swap_order=False
    )
    dataset.splits["train"] = weighted(dataset.splits["train"], params, params.seed)
    return EntailmentData(dataset, counts)


def train_entailment(data: EntailmentData, params: EntailmentParams, output_dir: Path) -> TeacherResult:
    """Fine-tune, calibrate and save the judge in ``output_dir``; its metrics and curves."""
    from scicon.train.calibrate import calibrate_classifier
    from scicon.train.lora import finetune

    train, dev = data.dataset.splits["train"], data.dataset.splits["dev"]
    for split, examples in (("training", train), ("held-out", dev)):
        if len({e.label for e in examples}) < 2:
            raise InputFormatError(
                "entailment data",
                f"the {split} split ({len(examples)} examples) lacks entailments or non-entailments: "
                "add labelled sets or change entailment.dev_fraction",
            )
    trained = finetune(train, dev, params.training, output_dir, ENTAILMENT_LABELS)
    method = params.training.calibration
    calibration, raw, labels = calibrate_classifier(output_dir, dev, method, ENTAILMENT)
    honest = cross_fitted(raw, labels, np.array([held_out_half(e) for e in dev]), method)
    metrics = {
        "training": trained.metrics,
        "examples": {split: len(data.dataset.splits[split]) for split in ("train", "dev")},
        "entailments": {
            split: sum(e.label for e in data.dataset.splits[split]) for split in ("train", "dev")
        },
        "labelled": data.labelled,
        "labels": ENTAILMENT_LABELS,
        "calibration": {"method": method, "fitted_on": len(dev)},
        "dev": {
            "raw": calibration_report(raw, labels),
            "calibrated_cross_fitted": calibration_report(honest, labels) if honest is not None else None,
        },
        "dev_by_source": source_figures(dev, calibration(raw), 0.5),
    }
    log.info("entailment judge: dev ROC-AUC %.3f", metrics["dev"]["raw"]["roc_auc"])
    return TeacherResult(metrics, trained.loss_curve, trained.dev_curve)


def write_untrained(output_dir: Path) -> TeacherResult:
    """An empty judge folder that says why it is empty, and metrics saying the same: the pairs
    stage neither selects nor filters by entailment by default, and a judge nobody reads is not
    worth minutes of every ``dvc repro``."""
    from scicon.io import write_json

    output_dir.mkdir(parents=True, exist_ok=True)
    for stale in output_dir.iterdir():  # a judge trained earlier must not be read as this one
        if stale.is_file():
            stale.unlink()
    why = "entailment.train is false: set it true to train the judge the pairs stage may use"
    write_json(output_dir / UNTRAINED_MARKER, {"trained": False, "why": why})
    log.info("entailment judge: not trained (%s)", why)
    return TeacherResult({"trained": False}, [], [])
