"""Stage `entailment`: train and calibrate the NLI judge.

Reads the labelled NLI sets of `entailment.labelled` (under `labelled_root`) and, with
`entailment.refine`, the in-domain judgements of its second phase; writes the classifier folder
with its calibrations, `metrics/entailment.json` (headline) and `reports/entailment.json` (every
figure) and the training-loss and dev ROC-AUC curves. With `entailment.head: entailment` the
judge tells entailment from the rest, for the pairs stage to choose supporting results and
drop pairs that are not entailments; with `three_way` it is also the contradiction judge EvoNLI
searches against and the evaluate stage reads (evolve.settings.goal.classifier.model and
evaluate.classifiers.teacher name this folder), judged on the gold pairs of `gold` as the
teacher is. With `entailment.train: false` (the default: the pairs stage uses no judge by
default) the folder only holds a note saying it is untrained, and the metrics say the same.
"""

from pathlib import Path

from scicon.entailment.params import EntailmentParams
from scicon.entailment.train import entailment_data, train_entailment, write_untrained_judge
from scicon.headline import write_report_and_headline
from scicon.params import load_key, load_section
from scicon.plots import write_training_curves
from scicon.readers.sets import GoldSpec
from scicon.stage import add_metrics_arguments, add_training_curve_arguments, run_stage, stage_parser
from scicon.teacher.gold import gold_figures


def main(args) -> None:
    params = load_section(args.params, "entailment", EntailmentParams)
    if params.train:
        data = entailment_data(params, load_key(args.params, "labelled_root"))
        result = train_entailment(data, params, Path(args.model))
        if params.head == "three_way":
            gold = load_section(args.params, "gold", GoldSpec)
            result.metrics["gold"] = gold_figures(Path(args.model), gold)
    else:
        result = write_untrained_judge(Path(args.model))
    write_training_curves(result, args.loss_plot, args.dev_plot)
    write_report_and_headline("entailment", result.metrics, args.figures, args.metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--model", required=True, help="output folder of the calibrated NLI judge")
    add_metrics_arguments(command)
    add_training_curve_arguments(command)
    return command


if __name__ == "__main__":
    run_stage(main, parser())
