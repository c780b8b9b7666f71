"""The teacher judged on gold labels: the figures of :mod:`scicon.evaluate.judge` for its
calibrated P(contradiction), the probability ``target`` thresholds."""

from __future__ import annotations

import logging
from pathlib import Path

from scicon.evaluate.benchmarks import Skipped, load_benchmarks
from scicon.evaluate.judge import GOLD, judge_figures
from scicon.evaluate.params import GoldSpec

log = logging.getLogger(__name__)


def gold_figures(model_dir: Path, gold: GoldSpec, target: float) -> dict | None:
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
        target=target,
        resamples=gold.bootstrap_resamples,
        confidence=gold.confidence_level,
        seed=gold.seed,
    )
    log.info(
        "teacher on gold: ROC-AUC %s overall, %s within the rule negatives; at target %.2f precision %s",
        figures["overall"]["roc_auc"],
        figures["within_rule_negatives"]["roc_auc"],
        target,
        figures["at_target"]["precision"],
    )
    return {"status": "evaluated", "file": Path(gold.path).name, **figures}
