"""P(contradiction) from a saved sequence-classification model: one scorer for every caller.

The scored class is a name: contradiction by default, ``entailment`` for the entailment
judge the pairs stage uses (``scicon.pairing.entailment``), scored by the same code.

A classifier folder is either what the finetune stage saves (a LoRA adapter with its
trained head, the tokenizer, the base model in ``base/`` and a run record, see
:mod:`scicon.classifier_folder`) or any plain Hugging Face sequence-classification folder,
such as an NLI cross-encoder. The contradiction
class is found by name in the model's ``config.id2label``; the maximum input length
comes from the run record when there is one, else from the tokenizer. If the folder
holds ``calibration.json`` (a :class:`scicon.calibration.Calibration`), the scorer's
probabilities are calibrated by it; the raw ones stay available, and ROC-AUC (a rank
statistic) is computed from them.

Scoring is batched and holds :data:`scicon.threads.COMPUTE_LOCK` around tokenisation and the
forward pass, so one instance can serve several threads (the evolve search scores candidates
from worker threads) and never computes beside another model of the process.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from scicon.calibration import Calibration
from scicon.classifier_folder import (
    BASE_FOLDER,
    calibration_file,
    load_model,
    max_length_of,
    read_run_record,
    reads_edits,
    untrained_reason,
)
from scicon.errors import InputFormatError, InputNotFoundError, ParamsError
from scicon.textdiff import marked_edit
from scicon.threads import COMPUTE_LOCK

log = logging.getLogger(__name__)

SentencePair = tuple[str, str]

CONTRADICTION = "contradiction"
ENTAILMENT = "entailment"  # the entailment judge's positive class (its other one: non_entailment)


def contradiction_probabilities_from_logits(logits: np.ndarray, label_index: int) -> np.ndarray:
    """Softmax probability of class ``label_index``; a single-logit head is read through a sigmoid."""
    logits = np.asarray(logits, dtype=np.float64)
    if logits.shape[-1] == 1:
        return 1.0 / (1.0 + np.exp(-logits[:, 0]))
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return exp[:, label_index] / exp.sum(axis=-1)


def label_index(id2label: dict, wanted: str, origin: str) -> int:
    """The index of label ``wanted`` (a name, case-insensitive, or an index as digits)."""
    if wanted.isdigit():
        index = int(wanted)
        if index not in {int(key) for key in id2label}:
            raise InputFormatError(origin, f"no label index {index} (labels: {dict(id2label)})")
        return index
    for index, name in id2label.items():
        if str(name).lower() == wanted.lower():
            return int(index)
    raise InputFormatError(
        origin, f"no label named {wanted!r} among {sorted(map(str, id2label.values()))}; name it explicitly"
    )


def _device(requested: str | None):
    import torch

    if requested in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(requested)


class ContradictionClassifier:
    """P(contradiction) of sentence pairs from a classifier folder (see the module docstring).

    ``contradiction_label`` names the contradiction class in ``config.id2label`` (or gives
    its index as digits); another class name (e.g. :data:`ENTAILMENT`) makes every method
    here score that class instead, calibrated by the folder's calibration for it.
    ``max_length`` overrides what the folder says.
    """

    name = "classifier"

    def __init__(
        self,
        folder: str | Path,
        contradiction_label: str = CONTRADICTION,
        batch_size: int = 32,
        device: str | None = None,
        max_length: int | None = None,
    ):
        from transformers import AutoTokenizer

        folder = Path(folder)
        if not folder.is_dir():
            raise InputNotFoundError(f"{folder}: classifier folder not found")
        why = untrained_reason(folder)
        if why is not None:
            raise InputNotFoundError(f"{folder}: holds no trained classifier ({why})")
        record = read_run_record(folder)
        model = load_model(folder, record)
        tokenizer_source = folder if (folder / "tokenizer_config.json").is_file() else folder / BASE_FOLDER
        tokenizer = AutoTokenizer.from_pretrained(tokenizer_source)
        label = label_index(model.config.id2label, contradiction_label, str(folder / "config.json"))
        calibration_path = calibration_file(folder, str(model.config.id2label[label]))
        calibration = Calibration.load(calibration_path) if calibration_path.is_file() else None
        self._setup(
            model,
            tokenizer,
            max_length=max_length or max_length_of(record, tokenizer, model.config),
            label=label,
            calibration=calibration,
            batch_size=batch_size,
            device=device,
        )
        self.reads_edits = reads_edits(record)
        self.folder = folder
        log.info(
            "classifier %s: scored class = label %d of %s, max_length %d%s",
            folder,
            self.label_index,
            dict(model.config.id2label),
            self.max_length,
            ", calibrated" if calibration else "",
        )

    @classmethod
    def from_model(
        cls,
        model,
        tokenizer,
        max_length: int,
        contradiction_label: str = CONTRADICTION,
        batch_size: int = 32,
    ) -> ContradictionClassifier:
        """A scorer over a model already in memory (e.g. the one being fine-tuned), on its device."""
        scorer = cls.__new__(cls)
        label = label_index(model.config.id2label, contradiction_label, "the model's config")
        device = next(model.parameters()).device
        scorer._setup(model, tokenizer, max_length, label, None, batch_size, str(device))
        scorer.folder = None
        scorer.reads_edits = False
        return scorer

    def _setup(self, model, tokenizer, max_length, label, calibration, batch_size, device) -> None:
        if tokenizer.pad_token is None:
            # decoder-only backbones (Llama, Mistral) ship without a pad token
            tokenizer.pad_token = tokenizer.eos_token
        self.device = _device(device)
        self.model = model.to(self.device)
        self.model.eval()
        self.tokenizer = tokenizer
        self.max_length = int(max_length)
        self.label_index = int(label)
        self.calibration: Calibration | None = calibration
        self.batch_size = int(batch_size)

    def shown(
        self, pairs: Sequence[SentencePair], originals: Sequence[str | None] | None
    ) -> list[SentencePair]:
        """The pairs as this model reads them: a judge trained on marked edits sees each sentence2's
        edit of its original (``originals``, one per pair, None where a pair is not an edit) marked
        in place (:func:`scicon.textdiff.marked_edit`); any other model, or no originals, the pairs."""
        if originals is None or not self.reads_edits:
            return list(pairs)
        if len(originals) != len(pairs):
            raise ValueError(f"{len(originals)} originals for {len(pairs)} pairs")
        return [
            (first, marked_edit(original, second))
            for (first, second), original in zip(pairs, originals, strict=True)
        ]

    def raw_contradiction_probabilities(
        self,
        pairs: Sequence[SentencePair],
        progress: str | None = None,
        originals: Sequence[str | None] | None = None,
    ) -> list[float]:
        """The model's own P(contradiction), in input order; ``progress`` labels a progress bar."""
        logits = self.logits(pairs, progress, originals)
        return contradiction_probabilities_from_logits(logits, self.label_index).tolist()

    def logits(
        self,
        pairs: Sequence[SentencePair],
        progress: str | None = None,
        originals: Sequence[str | None] | None = None,
    ) -> np.ndarray:
        """The model's logits of every class, one row per pair in input order: one forward pass
        serves any class (``contradiction_probabilities_from_logits`` reads one). With ``originals``
        a judge that reads edits is shown them (:meth:`shown`)."""
        import torch
        from tqdm.auto import tqdm

        pairs = self.shown(pairs, originals)
        rows: list[np.ndarray] = []
        starts = range(0, len(pairs), self.batch_size)
        with COMPUTE_LOCK, torch.inference_mode():
            for start in tqdm(starts, desc=progress, unit="batch", leave=False, disable=progress is None):
                batch = pairs[start : start + self.batch_size]
                encoded = self.tokenizer(
                    [first for first, _ in batch],
                    [second for _, second in batch],
                    truncation=True,
                    max_length=self.max_length,
                    padding=True,
                    return_tensors="pt",
                ).to(self.device)
                rows.append(self.model(**encoded).logits.float().cpu().numpy())
        return np.concatenate(rows) if rows else np.zeros((0, self.model.config.num_labels))

    def calibrate(self, raw: Sequence[float]) -> list[float]:
        """``raw`` probabilities through the folder's calibration (unchanged without one)."""
        if self.calibration is None:
            return [float(p) for p in raw]
        return [float(p) for p in self.calibration(raw)]

    def contradiction_probabilities(
        self, pairs: Sequence[SentencePair], originals: Sequence[str | None] | None = None
    ) -> list[float]:
        """P(contradiction), calibrated when the folder holds a calibration; ``originals`` as
        :meth:`shown` reads them."""
        return self.calibrate(self.raw_contradiction_probabilities(pairs, originals=originals))


def plain_pairs_classifier(folder: str | Path, key: str, batch_size: int = 32) -> ContradictionClassifier:
    """The verifier named by params ``key``: a classifier of plain pairs, never an edit marked
    (the search's judge reads those); one trained on marked edits is refused, naming ``key``."""
    classifier = ContradictionClassifier(folder, batch_size=batch_size)
    if classifier.reads_edits:
        raise ParamsError(
            f"{key}: {folder} was trained on marked edits; the verifier reads plain pairs "
            "(train one with the verifier stage, verifier.edits.marked false)"
        )
    return classifier
