"""Stage `teacher`: train and calibrate the contradiction teacher EvoNLI searches against.

Reads the pairs and the rule negatives (and the labelled NLI sets of `teacher.labelled`, under
`labelled_root`); writes the classifier folder with its `calibration.json`,
`metrics/teacher.json` (headline) and `reports/teacher.json` (every figure), with its figures on
the gold pairs of `gold`, when configured, and the training-loss and dev ROC-AUC curves. With
`teacher.train: false` (a run whose contradiction judge is made elsewhere: the released judge the
demo pulls, or the entailment stage's three-way one) the folder only holds a note saying so. It
reads no EvoNLI threshold: its figures at `target` (what the search would accept, and how
precisely) are the evaluate stage's, so a threshold sweep never retrains it.
"""

from pathlib import Path

from scicon.classifier_folder import write_untrained
from scicon.dataset.sources import SourcePaths
from scicon.headline import write_report_and_headline
from scicon.params import load_key, load_section
from scicon.plots import write_training_curves
from scicon.readers.sets import GoldSpec
from scicon.stage import add_metrics_arguments, add_training_curve_arguments, run_stage, stage_parser
from scicon.teacher.data import teacher_data
from scicon.teacher.gold import gold_figures
from scicon.teacher.params import TeacherParams
from scicon.teacher.train import TeacherResult, train_teacher


def main(args) -> None:
    params = load_section(args.params, "teacher", TeacherParams)
    if params.train:
        gold = load_section(args.params, "gold", GoldSpec)
        paths = SourcePaths(pairs=Path(args.pairs), negatives=Path(args.negatives))
        data = teacher_data(paths, params, load_key(args.params, "labelled_root"))
        result = train_teacher(data, params, Path(args.model))
        result.metrics["gold"] = gold_figures(Path(args.model), gold)
    else:
        why = (
            "teacher.train is false: the contradiction judge is the folder "
            "evolve.settings.goal.classifier.model names"
        )
        write_untrained(Path(args.model), why)
        result = TeacherResult({"trained": False, "why": why}, [], [])
    write_training_curves(result, args.loss_plot, args.dev_plot)
    write_report_and_headline("teacher", result.metrics, args.figures, args.metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--pairs", required=True, help="input JSONL of entailing pairs")
    command.add_argument("--negatives", required=True, help="input JSONL of rule negatives")
    command.add_argument("--model", required=True, help="output folder of the calibrated teacher")
    add_metrics_arguments(command)
    add_training_curve_arguments(command)
    return command


if __name__ == "__main__":
    run_stage(main, parser())
