"""Train the teacher, calibrate its probabilities on the held-out abstracts, and say how good it is.

Training is the finetune stage's (LoRA or full fine-tuning of a sequence classifier, from
the ``teacher.training`` settings). With ``teacher.refine`` a second phase continues from the
first phase's weights on in-domain judgements, and everything below is measured on the
judgements' held-out split. The classifier's P(contradiction) is then mapped to
a calibrated probability fitted on the held-out split (``teacher.calibration``: Platt
scaling or isotonic regression) and saved as ``calibration.json`` beside the model, which
every scorer of that folder applies — EvoNLI's ``target`` is a threshold on it.

What the metrics report, all on the held-out split:

- ``dev``: ROC-AUC, Brier score, log loss and expected calibration error of the raw and of
  the calibrated probability; the calibrated figures are cross-fitted (the calibration is
  fitted on one half of the held-out abstracts and scored on the other, both ways), since
  a map scored on the examples it was fitted on looks better than it is;
- ``probe``: the same on the cross-sentence probe — the original pairs against their
  sentence1 with the rule-negated sentence2, the situation the search puts the teacher in;
- ``sources``: per data source, its examples, its label, the mean calibrated probability,
  the ROC-AUC of its examples against every held-out example of the other label, and the
  share above ``target`` (for a contradiction source, how much of it the search would
  accept; for a non-contradiction source, how often the teacher is fooled).
"""

from __future__ import annotations

import hashlib
import logging
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scicon.calibration import calibration_report, fit_calibration
from scicon.dataset.build import BuiltDataset
from scicon.dataset.params import BuildSource
from scicon.errors import InputFormatError
from scicon.params import meets_threshold
from scicon.records.dataset import Example
from scicon.teacher.data import TeacherData
from scicon.teacher.params import TeacherParams, TeacherRefine
from scicon.train.calibrate import calibrate_classifier
from scicon.train.lora import LABELS, POSITIVE, finetune
from scicon.train.params import FinetuneParams

log = logging.getLogger(__name__)

PROBE_GENERATORS = (BuildSource.ORIGINAL.value, "rules_cross")


@dataclass
class TeacherResult:
    metrics: dict
    loss_curve: list[dict]
    dev_curve: list[dict]


def held_out_half(example: Example) -> int:
    """Half of the held-out abstracts, by a hash of the PMID (an abstract stays in one half)."""
    return hashlib.sha256(example.pmid.encode()).digest()[0] % 2


def cross_fitted(raw: np.ndarray, labels: np.ndarray, folds: np.ndarray, method: str) -> np.ndarray | None:
    """Each half calibrated by the map fitted on the other half; None if a half lacks a class."""
    calibrated = np.empty_like(raw)
    for fold in (0, 1):
        fit, score = folds != fold, folds == fold
        if len(set(labels[fit].tolist())) < 2 or not score.any():
            return None
        calibrated[score] = fit_calibration(raw[fit], labels[fit], method)(raw[score])
    return calibrated


def source_figures(
    examples: Sequence[Example], probabilities: np.ndarray, threshold: float | None = None
) -> dict[str, dict]:
    """Per generator and label: examples, mean probability, ROC-AUC against the other label and,
    with ``threshold``, the share at or above it."""
    from sklearn.metrics import roc_auc_score

    labels = np.array([e.label for e in examples])
    generators = np.array([e.generator for e in examples])
    figures = {}
    for generator in sorted(set(generators.tolist())):
        mine = generators == generator
        for label in sorted(set(labels[mine].tolist())):
            members = mine & (labels == label)
            others = labels != label
            name = generator if len(set(labels[mine].tolist())) == 1 else f"{generator}:{label}"
            auc = None
            if others.any():
                scores = np.concatenate([probabilities[members], probabilities[others]])
                truth = np.concatenate([np.full(members.sum(), label), labels[others]])
                auc = round(float(roc_auc_score(truth, scores)), 4)
            figures[name] = {
                "examples": int(members.sum()),
                "label": int(label),
                "mean_probability": round(float(probabilities[members].mean()), 4),
                "roc_auc_against_other_label": auc,
            }
            if threshold is not None:
                figures[name]["share_at_or_above"] = round(
                    float(meets_threshold(probabilities[members], threshold).mean()), 4
                )
    return figures


def _both_classes(dev: Sequence[Example], origin: str, setting: str) -> None:
    if len({e.label for e in dev}) < 2:
        raise InputFormatError(
            origin, f"the held-out split ({len(dev)} examples) lacks a class: raise {setting}"
        )


def train_in_phases(
    general: BuiltDataset,
    judgements: BuiltDataset | None,
    training: FinetuneParams,
    refine: TeacherRefine | None,
    output_dir: Path,
    section: str,
    labels: dict[int, str] | None = None,
    scored: Sequence[int] | None = None,
    general_model: Path | None = None,
    checkpoints: Path | None = None,
):
    """The first phase's training on the general data; with ``refine``, a second phase from its
    weights on the in-domain ``judgements``; with ``checkpoints``, each phase checkpoints into a
    folder of its own there and a rerun resumes where the interrupted one stopped. Returns the last
    phase's result, its held-out split and the first phase's result (None without refine, or when
    ``general_model`` names a first phase already trained on the same general data, which the second
    phase then starts from: the cross-fitted judges share one). ``section`` names the settings in
    errors; ``labels`` and ``scored`` are the finetune's (default: contradiction against the rest)."""
    labels, scored = labels or LABELS, scored or (POSITIVE,)

    def phase(name: str) -> Path | None:
        return checkpoints / name if checkpoints is not None else None

    train, dev = general.splits["train"], general.splits["dev"]
    _both_classes(dev, f"{section} data", f"{section}.dev_fraction")
    if refine is None or judgements is None:
        return finetune(train, dev, training, output_dir, labels, scored, phase("general")), dev, None
    refine_dev = judgements.splits["dev"]
    _both_classes(refine_dev, f"{section} data", f"{section}.refine.dev_fraction")
    output_dir.parent.mkdir(parents=True, exist_ok=True)

    def second_phase(start: Path):
        second = training.model_copy(
            update={
                "base_model": str(start),
                "max_steps": refine.max_steps,
                "eval_steps": refine.eval_steps,
                "learning_rate": refine.learning_rate,
            }
        )
        return finetune(
            judgements.splits["train"], refine_dev, second, output_dir, labels, scored, phase("refine")
        )

    if general_model is not None:
        return second_phase(general_model), refine_dev, None
    with tempfile.TemporaryDirectory(prefix=f".{output_dir.name}-general-", dir=output_dir.parent) as staging:
        first = finetune(train, dev, training, Path(staging) / "general", labels, scored, phase("general"))
        refined = second_phase(Path(staging) / "general")

    def one_axis(before: list[dict], after: list[dict]) -> list[dict]:
        return [*before, *({**row, "step": row["step"] + first.metrics["steps"]} for row in after)]

    refined.loss_curve = one_axis(first.loss_curve, refined.loss_curve)
    refined.dev_curve = one_axis(first.dev_curve, refined.dev_curve)
    return refined, refine_dev, first


def refine_figures(general, judgements: BuiltDataset | None, labelled: dict[str, int] | None) -> dict | None:
    """What the report says of a second phase: the first phase's training, the judgements read and
    their splits (None without a second phase; ``general`` is the first phase's result)."""
    if general is None or judgements is None:
        return None
    return {
        "general_training": general.metrics,
        "labelled": labelled,
        "examples": {split: len(judgements.splits[split]) for split in ("train", "dev")},
    }


def train_teacher(data: TeacherData, params: TeacherParams, output_dir: Path) -> TeacherResult:
    trained, dev, general = train_in_phases(
        data.dataset, data.refine, params.training, params.refine, output_dir, "teacher"
    )
    method = params.training.calibration
    calibration, raw, labels = calibrate_classifier(output_dir, dev, method)

    folds = np.array([held_out_half(e) for e in dev])
    honest = cross_fitted(raw, labels, folds, method)
    probe = np.isin([e.generator for e in dev], PROBE_GENERATORS)
    metrics = {
        "training": trained.metrics,
        "examples": {split: len(data.dataset.splits[split]) for split in ("train", "dev")},
        "refine": refine_figures(general, data.refine, data.refine_labelled),
        "sources": {report.name: report.summary() for report in data.reports},
        "labelled": data.labelled,
        "operators_left_out": data.left_out,
        "calibration": {"method": method, "fitted_on": len(dev)},
        "dev": {
            "raw": calibration_report(raw, labels),
            "calibrated_cross_fitted": calibration_report(honest, labels) if honest is not None else None,
        },
        "probe": {
            "raw": calibration_report(raw[probe], labels[probe]) if probe.any() else None,
            "calibrated_cross_fitted": calibration_report(honest[probe], labels[probe])
            if honest is not None and probe.any()
            else None,
        },
        "dev_by_source": source_figures(dev, calibration(raw)),
    }
    log.info(
        "teacher: dev ROC-AUC %.3f, cross-sentence probe %s",
        metrics["dev"]["raw"]["roc_auc"],
        metrics["probe"]["raw"]["roc_auc"] if metrics["probe"]["raw"] else "n/a",
    )
    return TeacherResult(metrics, trained.loss_curve, trained.dev_curve)
