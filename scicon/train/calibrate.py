"""Calibrate a saved classifier's P(contradiction) on held-out examples.

A fine-tuned classifier's softmax is not a probability a threshold can mean: its scale
depends on the data, the steps and the learning rate. Fitting Platt scaling (or isotonic
regression) on the held-out dev split and saving it beside the model
(``calibration.json``, applied by :class:`scicon.classifier.ContradictionClassifier`)
makes the teacher's and the student's answers probabilities, so either can be the
teacher EvoNLI's ``target`` is a threshold for.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from scicon.calibration import Calibration, calibration_report, fit_calibration
from scicon.classifier import CONTRADICTION, ContradictionClassifier
from scicon.classifier_folder import CALIBRATION_FILE
from scicon.records.dataset import Example

log = logging.getLogger(__name__)


def calibrate_classifier(
    folder: Path,
    examples: Sequence[Example],
    method: str,
    positive_label: str = CONTRADICTION,
    file_name: str = CALIBRATION_FILE,
) -> tuple[Calibration, np.ndarray, np.ndarray]:
    """Fit ``method`` to the probability of class ``positive_label`` (label 1 of ``examples``; both
    labels needed), save it in ``folder`` as ``file_name``; returns the calibration, the raw
    probabilities and the labels."""
    scorer = ContradictionClassifier(folder, positive_label)
    raw = np.array(scorer.raw_contradiction_probabilities([(e.sentence1, e.sentence2) for e in examples]))
    labels = np.array([e.label for e in examples])
    calibration = fit_calibration(raw, labels, method)
    calibration.save(Path(folder) / file_name)
    return calibration, raw, labels


def calibrate_student(folder: Path, dev: Sequence[Example], method: str) -> dict:
    """Calibrate the fine-tuned classifier on SciCon dev when it has both labels; its figures."""
    if len({e.label for e in dev}) < 2:
        log.warning("finetune: the dev split lacks a label: the classifier is left uncalibrated")
        return {"method": None, "reason": "the dev split lacks a label"}
    calibration, raw, labels = calibrate_classifier(folder, dev, method)
    return {
        "method": method,
        "dev_raw": calibration_report(raw, labels),
        "dev_calibrated_in_sample": calibration_report(calibration(raw), labels),
    }
