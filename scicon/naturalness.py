"""A naturalness check learnt from the annotators' garbled marks: does an edit read as written?

Annotators mark a sentence B "garbled" when a careful reader would notice it was machine-edited
(an unnatural opposite, a negation that breaks the grammar). A third of the contradictions
SciCon's generators make carry that mark, and a mark a reader can see is a cue a classifier can
learn instead of the contradiction. This check learns the mark from the judgements themselves:
each edit is described by what it changed and the words around it (``removed=``, ``added=``,
``swap=a>b``, ``left=w_x``, ``right=x_w`` for each added word ``x``, the edit's size), and a
logistic regression on those tokens gives P(garbled). It is scored out of sample by abstract
(grouped folds) beside the trivial baseline of the edit's size alone; the build's gate leaves out
an edit whose P(garbled) exceeds ``build.max_garbled``.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import joblib
import numpy as np
from pydantic import Field
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import Pipeline, make_pipeline

from scicon.classifier_folder import emptied_folder, untrained_reason, write_untrained
from scicon.errors import InputFormatError, InputNotFoundError
from scicon.evaluate.roc import auc_with_interval
from scicon.io import atomic_open, read_jsonl, write_json
from scicon.params import Section
from scicon.records.judgements import Judgement
from scicon.textdiff import words

log = logging.getLogger(__name__)

MODEL_FILE = "naturalness.joblib"
RECORD_FILE = "naturalness.json"


class NaturalnessParams(Section):
    train: bool = Field(description="learn the check; false writes a folder marked untrained")
    judgements: str = Field(description="the judgements whose garbled marks it learns (gold format)")
    regularization: float = Field(gt=0.0, description="inverse L2 strength of the logistic regression")
    min_count: int = Field(ge=1, description="an edit token seen fewer times is ignored")
    folds: int = Field(ge=2, description="grouped (by abstract) folds of the out-of-sample figures")
    seed: int


def edit_tokens(original: str, edited: str) -> str:
    """The edit as tokens: what it removed and added, each added word with its neighbours, its size."""
    before, after = [w.lower() for w in words(original)], [w.lower() for w in words(edited)]
    tokens = []
    changed = 0
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        removed, added = before[i1:i2], after[j1:j2]
        changed += max(len(removed), len(added))
        tokens += [f"removed={w}" for w in removed] + [f"added={w}" for w in added]
        if removed and added:
            tokens.append(f"swap={'_'.join(removed)}>{'_'.join(added)}")
        for position in range(j1, j2):
            left = after[position - 1] if position > 0 else "<s>"
            right = after[position + 1] if position + 1 < len(after) else "</s>"
            tokens += [f"left={left}_{after[position]}", f"right={after[position]}_{right}"]
        if not added:
            left = after[j1 - 1] if j1 > 0 else "<s>"
            right = after[j1] if j1 < len(after) else "</s>"
            tokens.append(f"joined={left}_{right}")
    tokens.append(f"size={min(changed, 4)}")
    return " ".join(tokens)


def _pipeline(params: NaturalnessParams) -> Pipeline:
    return make_pipeline(
        CountVectorizer(
            tokenizer=str.split, lowercase=False, token_pattern=None, min_df=params.min_count, binary=True
        ),
        LogisticRegression(C=params.regularization, max_iter=2000, random_state=params.seed),
    )


@dataclass(frozen=True)
class Edits:
    texts: list[str]
    garbled: np.ndarray
    groups: np.ndarray
    sizes: np.ndarray


def edits_of(judgements: Sequence[Judgement]) -> Edits:
    """The judged edits (a sentence made from another) as edit tokens, with their garbled marks."""
    edited = [j for j in judgements if j.original is not None and j.original != j.sentence2]
    texts = [edit_tokens(j.original, j.sentence2) for j in edited]
    return Edits(
        texts=texts,
        garbled=np.array([j.garbled for j in edited]),
        groups=np.array([j.pmid for j in edited]),
        sizes=np.array([int(text.rsplit("size=", 1)[1]) for text in texts]),
    )


def train_naturalness(params: NaturalnessParams, output_dir: Path, resamples: int, level: float) -> dict:
    """Learn the check from ``params.judgements``, save it in ``output_dir``; its figures, each
    ROC-AUC with a bootstrap interval of ``resamples`` at confidence ``level``."""
    path = Path(params.judgements)
    if not path.is_file():
        raise InputNotFoundError(f"naturalness.judgements: {path} does not exist")
    edits = edits_of(list(read_jsonl(path, Judgement)))
    if len(set(edits.garbled.tolist())) < 2:
        raise InputFormatError(str(path), "its edits need both garbled marks (0 and 1) to learn from")
    out_of_sample = np.zeros(len(edits.texts))
    folds = GroupKFold(n_splits=params.folds)
    for train, test in folds.split(edits.texts, edits.garbled, edits.groups):
        model = _pipeline(params).fit([edits.texts[i] for i in train], edits.garbled[train])
        out_of_sample[test] = model.predict_proba([edits.texts[i] for i in test])[:, 1]
    model = _pipeline(params).fit(edits.texts, edits.garbled)

    def figure(scores: np.ndarray) -> dict:
        estimate = auc_with_interval(edits.garbled, scores, resamples, level, params.seed)
        return {
            "roc_auc": round(estimate.auc, 4),
            "interval": [round(estimate.ci_low, 4), round(estimate.ci_high, 4)],
        }

    metrics = {
        "trained": True,
        "edits": len(edits.texts),
        "garbled": int(edits.garbled.sum()),
        "garbled_share": round(float(edits.garbled.mean()), 4),
        "out_of_sample": figure(out_of_sample),
        "edit_size_baseline": figure(edits.sizes.astype(float)),
        "folds": params.folds,
        "grouped_by": "pmid",
        "features": len(model[0].vocabulary_),
    }
    emptied_folder(output_dir)
    with atomic_open(output_dir / MODEL_FILE, "wb") as handle:
        joblib.dump(model, handle)
    write_json(output_dir / RECORD_FILE, {"judgements": str(path), **metrics})
    log.info(
        "naturalness: %d edits, out-of-sample ROC-AUC %.3f against garbled marks (edit size alone %.3f)",
        len(edits.texts),
        metrics["out_of_sample"]["roc_auc"],
        metrics["edit_size_baseline"]["roc_auc"],
    )
    return metrics


def write_untrained_check(output_dir: Path) -> dict:
    why = "naturalness.train is false: set it true to learn the check from the garbled marks"
    write_untrained(output_dir, why)
    return {"trained": False}


class NaturalnessCheck:
    """P(garbled) of edits, from a folder :func:`train_naturalness` wrote."""

    def __init__(self, folder: str | Path):
        folder = Path(folder)
        why = untrained_reason(folder)
        if why is not None:
            raise InputFormatError(str(folder), f"the naturalness check is untrained ({why})")
        if not (folder / MODEL_FILE).is_file():
            raise InputNotFoundError(
                f"{folder}: no naturalness check ({MODEL_FILE}); run the naturalness stage"
            )
        self.model = joblib.load(folder / MODEL_FILE)

    def garbled_probabilities(self, edits: Sequence[tuple[str | None, str]]) -> np.ndarray:
        """P(garbled) of each (original, edited) pair; a sentence with no original is no edit."""
        texts = [
            edit_tokens(original if original is not None else edited, edited) for original, edited in edits
        ]
        return self.model.predict_proba(texts)[:, 1]
