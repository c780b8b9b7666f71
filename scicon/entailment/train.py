"""Train the NLI judge on labelled NLI, calibrate it on held-out premises, report it.

Two heads (``entailment.head``). ``entailment``: entailment against the rest, the judge the
pairs stage reads. ``three_way``: entailment / neutral / contradiction, one judge trained once
that the pairs stage reads P(entailment) of and EvoNLI's goal and the evaluate stage
P(contradiction) of; each of the two is calibrated on its own (``calibration-<class>.json``).

The data are the teacher's labelled sets (:func:`scicon.labelled.candidates.labelled_candidates`);
the held-out split is grouped by the loader's group (the premise or the document), so no
premise is on both sides. Sentence order is kept: entailment is directional (evidence first,
claim second), unlike the contradiction teacher's data, which has half its pairs swapped.
With ``entailment.refine`` a second phase continues from the first phase's weights on in-domain
judgements (as the teacher's) and the calibrations are fitted on their held-out abstracts.

Training is the finetune stage's, with the classes named in the saved config; the metrics are
the teacher's held-out figures for each class read: raw and cross-fitted calibrated ROC-AUC,
Brier score, log loss and ECE, and per labelled set its examples and mean calibrated probability
per label.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scicon.calibration import calibration_report
from scicon.classifier import CONTRADICTION, ENTAILMENT
from scicon.classifier_folder import (
    CALIBRATION_FILE,
    class_calibration_name,
    record_edit_marking,
    write_untrained,
)
from scicon.dataset.build import BuiltDataset, build_dataset
from scicon.entailment.params import EntailmentParams
from scicon.errors import InputFormatError
from scicon.labelled.candidates import labelled_candidates, weighted
from scicon.readers.rows import NLI_LABELS
from scicon.records.dataset import Example, ThreeWayExample
from scicon.teacher.data import refine_dataset
from scicon.teacher.train import (
    TeacherResult,
    cross_fitted,
    held_out_half,
    refine_figures,
    source_figures,
    train_in_phases,
)
from scicon.train.calibrate import calibrate_classifier

log = logging.getLogger(__name__)

ENTAILMENT_LABELS = {0: f"non_{ENTAILMENT}", 1: ENTAILMENT}
THREE_WAY_LABELS = dict(enumerate(NLI_LABELS))
# the classes a three-way judge is read for: the pairs filter's and the search's
THREE_WAY_READ = (ENTAILMENT, CONTRADICTION)
SECTION = "entailment"


@dataclass
class EntailmentData:
    dataset: BuiltDataset  # train and dev splits
    labelled: dict[str, int]  # rows per labelled set
    refine: BuiltDataset | None = None  # the second phase's train and dev splits
    refine_labelled: dict[str, int] | None = None


def _classes(params: EntailmentParams) -> tuple[str | None, type[Example], dict[int, str], tuple[int, ...]]:
    """The positive class the readers label 1 (None: three-way indices), the row type, the classes
    by index and the indices of the classes read (and calibrated)."""
    if params.head == "three_way":
        read = tuple(NLI_LABELS.index(name) for name in THREE_WAY_READ)
        return None, ThreeWayExample, THREE_WAY_LABELS, read
    return ENTAILMENT, Example, ENTAILMENT_LABELS, (1,)


def entailment_data(
    params: EntailmentParams, labelled_root: str | None, section: str = SECTION
) -> EntailmentData:
    positive, example_type, _, _ = _classes(params)
    options = {"swap_order": False, "example_type": example_type}
    candidates, counts = labelled_candidates(
        params, labelled_root, positive=positive, section=section, edits=params.edits
    )
    dataset = build_dataset(
        candidates, dev_fraction=params.dev_fraction, test_fraction=0.0, seed=params.seed, **options
    )
    dataset.splits["train"] = weighted(dataset.splits["train"], params, params.seed)
    data = EntailmentData(dataset, counts)
    if params.refine is not None:
        refine = refine_dataset(
            params.refine, params.seed, labelled_root, section, positive, edits=params.edits, **options
        )
        data.refine, data.refine_labelled = refine
    return data


def one_against_rest(examples: Sequence[Example], index: int) -> list[Example]:
    """``examples`` relabelled 1 for class ``index`` and 0 for every other class."""
    return [Example.model_validate({**e.model_dump(), "label": int(e.label == index)}) for e in examples]


def train_entailment(
    data: EntailmentData,
    params: EntailmentParams,
    output_dir: Path,
    general_model: Path | None = None,
    checkpoints: Path | None = None,
    section: str = SECTION,
) -> TeacherResult:
    """Fine-tune, calibrate and save the judge in ``output_dir``; its metrics and curves. With
    ``general_model`` (a first phase trained on the same labelled sets) only the second phase runs;
    with ``checkpoints`` an interrupted training resumes from its last checkpoint there."""
    _, _, labels, read = _classes(params)
    train, dev = data.dataset.splits["train"], data.dataset.splits["dev"]
    for split, examples in (("training", train), ("held-out", dev)):
        present = {e.label for e in examples}
        if not all(index in present for index in read) or len(present) < 2:
            raise InputFormatError(
                "entailment data",
                f"the {split} split ({len(examples)} examples) lacks a class of {sorted(labels.values())}: "
                "add labelled sets or change entailment.dev_fraction",
            )
    trained, dev, general = train_in_phases(
        data.dataset,
        data.refine,
        params.training,
        params.refine,
        output_dir,
        section,
        labels,
        read,
        general_model,
        checkpoints,
    )
    if params.edits.marked:
        record_edit_marking(output_dir)
    method = params.training.calibration
    folds = np.array([held_out_half(e) for e in dev])
    by_class = {}
    for index in read:
        name, binary = labels[index], one_against_rest(dev, index)
        file_name = class_calibration_name(name) if params.head == "three_way" else CALIBRATION_FILE
        calibration, raw, truth = calibrate_classifier(output_dir, binary, method, name, file_name)
        honest = cross_fitted(raw, truth, folds, method)
        by_class[name] = {
            "dev": {
                "raw": calibration_report(raw, truth),
                "calibrated_cross_fitted": calibration_report(honest, truth) if honest is not None else None,
            },
            "dev_by_source": source_figures(binary, calibration(raw), 0.5),
        }
    entailment_index = next(index for index, name in labels.items() if name == ENTAILMENT)
    metrics = {
        "head": params.head,
        "training": trained.metrics,
        "examples": {split: len(data.dataset.splits[split]) for split in ("train", "dev")},
        "entailments": {
            split: sum(e.label == entailment_index for e in data.dataset.splits[split])
            for split in ("train", "dev")
        },
        "refine": refine_figures(general, data.refine, data.refine_labelled),
        "labelled": data.labelled,
        "labels": labels,
        "calibration": {"method": method, "fitted_on": len(dev)},
        # the pairs filter's class first, at the top level, for either head
        **by_class.pop(ENTAILMENT),
        "classes": by_class,
    }
    log.info("entailment judge: dev ROC-AUC %.3f", metrics["dev"]["raw"]["roc_auc"])
    return TeacherResult(metrics, trained.loss_curve, trained.dev_curve)


def write_untrained_judge(output_dir: Path) -> TeacherResult:
    """An empty judge folder that says why it is empty, and metrics saying the same: the pairs
    stage neither selects nor filters by entailment by default, and a judge nobody reads is not
    worth minutes of every ``dvc repro``."""
    why = "entailment.train is false: set it true to train the judge the pairs stage may use"
    write_untrained(output_dir, why)
    log.info("entailment judge: not trained (%s)", why)
    return TeacherResult({"trained": False}, [], [])
