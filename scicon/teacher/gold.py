"""The teacher judged on gold labels: the threshold-free figures of :mod:`scicon.evaluate.judge`
(ROC-AUC overall and within the rule negatives) for its calibrated P(contradiction).

Its figures at ``target`` come from the evaluate stage, which judges every classifier on gold:
the teacher's training does not depend on ``target``, so a change of ``target`` reruns the
search and the evaluation, never the training. ``python -m scicon.teacher.gold MODEL`` gives
every figure, those at ``target`` included, for any classifier folder outside the DAG (a
teacher trained on a round's judgements, say)."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from scicon.evaluate.judge import GOLD, judge_figures
from scicon.params import load_key, load_section
from scicon.readers.sets import GoldSpec, Skipped, load_sets
from scicon.stage import run_stage

log = logging.getLogger(__name__)


def gold_figures(model_dir: Path, gold: GoldSpec, target: float | None = None) -> dict | None:
    """None when no gold path is configured; a skipped entry when the file is absent."""
    from scicon.classifier import ContradictionClassifier

    if not gold.path:
        return None
    loaded = load_sets({GOLD: gold})[GOLD]
    if isinstance(loaded, Skipped):
        return {"status": "skipped", "reason": loaded.reason}
    classifier = ContradictionClassifier(model_dir)
    texts = [(pair.sentence1, pair.sentence2) for pair in loaded.pairs]
    # an edit is shown as the search shows it, where the file records the sentence it was made from
    probabilities = classifier.contradiction_probabilities(
        texts, originals=[pair.original for pair in loaded.pairs]
    )
    figures = judge_figures(
        loaded.pairs,
        probabilities,
        target=target,
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


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(prog="python -m scicon.teacher.gold", description=__doc__)
    command.add_argument("model", help="classifier folder (a teacher, a student, an entailment judge)")
    command.add_argument("--params", default="params.yaml", help="its `gold` section and `target`")
    command.add_argument("--gold", help="gold JSON Lines (default: gold.path of --params)")
    command.add_argument("--target", type=float, help="threshold of the figures at target (default: target)")
    return command


def main(args: argparse.Namespace) -> None:
    gold = load_section(args.params, "gold", GoldSpec)
    if args.gold:
        gold = gold.model_copy(update={"path": args.gold})
    target = args.target if args.target is not None else load_key(args.params, "target")
    print(json.dumps(gold_figures(Path(args.model), gold, target), indent=2, sort_keys=True))


if __name__ == "__main__":
    run_stage(main, parser())
