"""The teacher judged on gold labels: the threshold-free figures of :mod:`scicon.evaluate.judge`
(ROC-AUC overall and within the rule negatives) for its calibrated P(contradiction).

Its figures at ``target`` come from the evaluate stage, which judges every classifier on gold:
the teacher's training does not depend on ``target``, so a change of ``target`` reruns the
search and the evaluation, never the training."""

from __future__ import annotations

import logging
from pathlib import Path

from scicon.evaluate.benchmarks import Skipped, load_benchmarks
from scicon.evaluate.judge import GOLD, judge_figures
from scicon.evaluate.params import GoldSpec

log = logging.getLogger(__name__)


def gold_figures(model_dir: Path, gold: GoldSpec) -> dict | None:
    """None when no gold path is configured; a skipped entry when the file is absent."""
    from scicon.classifier import ContradictionClassifier

    if not gold.path:
        return None
    loaded = load_benchmarks({GOLD: gold})[GOLD]
    if isinstance(loaded, Skipped):
        return {"status": "skipped", "reason": loaded.reason}
    classifier = ContradictionClassifier(model_dir)
    texts = [(pair.sentence1, pair.sentence2) for pair in loaded.pairs]
    probabilities = classifier.contradiction_probabilities(texts)
    figures = judge_figures(
        loaded.pairs,
        probabilities,
        target=None,
        resamples=gold.bootstrap_resamples,
        confidence=gold.confidence_level,
        seed=gold.seed,
    )
    log.info(
        "teacher on gold: ROC-AUC %s overall, %s within the rule negatives",
        figures["overall"]["roc_auc"],
        figures["within_rule_negatives"]["roc_auc"],
    )
    return {"status": "evaluated", "file": Path(gold.path).name, **figures}
