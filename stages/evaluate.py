"""Stage `evaluate`: every classifier, the zero-shot backbone and trivial baselines on every benchmark.

Reads the benchmarks of `evaluate.benchmarks` and the gold pairs of `gold` (when a path is
set: each scorer's gold figures, docs/judge.md), the classifier folders of
`evaluate.classifiers` and SciCon's training split (for the n-gram overlap); writes
`metrics/evaluate.json` (headline) and `reports/evaluate.json` (every figure), one
ROC-curve CSV per benchmark and model (and the best baseline) into the plots folder, and
one per-example score table per benchmark into the scores folder.
"""

import argparse
from pathlib import Path

from scicon.backbones.params import BackboneParams
from scicon.errors import ParamsError
from scicon.evaluate.benchmarks import load_benchmarks
from scicon.evaluate.judge import GOLD
from scicon.evaluate.params import EvaluateParams
from scicon.evaluate.run import (
    ZERO_SHOT,
    JudgeSettings,
    ModelScorer,
    build_baselines,
    classifier_scorers,
    evaluate_benchmarks,
)
from scicon.evaluate.zero_shot import zero_shot_scores, zero_shot_teacher
from scicon.headline import write_report_and_headline
from scicon.io import read_jsonl, staged_folder
from scicon.params import load_key, load_section
from scicon.plots import write_csv
from scicon.readers.sets import GoldSpec
from scicon.records.dataset import Example
from scicon.stage import add_metrics_arguments, run_stage, stage_parser


def main(args) -> None:
    params = load_section(args.params, "evaluate", EvaluateParams)
    gold = load_section(args.params, "gold", GoldSpec)
    specs = dict(params.benchmarks)
    if GOLD in specs:
        raise ParamsError(f"evaluate.benchmarks.{GOLD}: the name is taken by the gold pairs of `gold`")
    # with no path the gold pairs are reported as skipped, and so is a hard variant built on them
    specs[GOLD] = gold
    judge = None
    if gold.path:
        judge = JudgeSettings(
            load_key(args.params, "target"), gold.bootstrap_resamples, gold.confidence_level, gold.seed
        )
    benchmarks = load_benchmarks(specs)
    baselines = build_baselines(params.baselines, params.seed)
    folders = {**params.classifiers, **dict(args.classifier)}
    models = classifier_scorers(folders, params.batch_size)
    train = read_jsonl(Path(args.scicon) / "train.jsonl", Example)
    train_texts = [text for example in train for text in (example.sentence1, example.sentence2)]
    context, loaded = None, []
    if params.zero_shot:
        teacher, context = zero_shot_teacher(
            load_section(args.params, "backbone", BackboneParams), params.seed
        )
        loaded = context.backbones  # the zero-shot goal's model, loaded as it was built
        models.append(
            ModelScorer(ZERO_SHOT, lambda pairs: zero_shot_scores(teacher, pairs, params.batch_size))
        )
    try:
        evaluation = evaluate_benchmarks(benchmarks, params, models, baselines, train_texts, judge)
    finally:
        if context is not None:
            context.close()
    if loaded:
        evaluation.metrics["zero_shot_backbone"] = loaded[0].metrics()

    with staged_folder(args.plots) as plots, staged_folder(args.scores) as scores:
        for name, points in evaluation.curves.items():
            write_csv(plots / f"{name}.csv", points, ("fpr", "tpr", "threshold"))
        for name, table in evaluation.scores.items():
            write_csv(scores / f"{name}.csv", table.rows(), ("key", "label", *table.columns))
    write_report_and_headline("evaluate", evaluation.metrics, args.figures, args.metrics)


def named_folder(value: str) -> tuple[str, str]:
    name, separator, folder = value.partition("=")
    if not (name and separator and folder):
        raise argparse.ArgumentTypeError(f"expected NAME=FOLDER, got {value!r}")
    return name, folder


def parser():
    command = stage_parser(__doc__)
    command.add_argument(
        "--scicon", required=True, help="SciCon folder (its train split is the overlap reference)"
    )
    add_metrics_arguments(command)
    command.add_argument("--plots", required=True, help="output folder of ROC-curve CSVs")
    command.add_argument("--scores", required=True, help="output folder of per-example score CSVs")
    command.add_argument(
        "--classifier",
        action="append",
        default=[],
        type=named_folder,
        metavar="NAME=FOLDER",
        help="a classifier to evaluate beside evaluate.classifiers (a self-training round's student)",
    )
    return command


if __name__ == "__main__":
    run_stage(main, parser())
