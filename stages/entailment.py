"""Stage `entailment`: train and calibrate the judge of P(sentence1 entails sentence2).

Reads the labelled NLI sets of `entailment.labelled` (under `labelled_root`); writes the
classifier folder (classes non_entailment / entailment) with its `calibration.json`,
`metrics/entailment.json` (headline) and `reports/entailment.json` (every figure) and the
training-loss and dev ROC-AUC curves. The pairs stage uses the folder to choose supporting
results and to drop pairs that are not entailments. With `entailment.train: false` (the
default: the pairs stage uses no judge by default) the folder only holds a note saying it
is untrained, and the metrics say the same.
"""

from pathlib import Path

from scicon.entailment.params import EntailmentParams
from scicon.entailment.train import entailment_data, train_entailment, write_untrained
from scicon.headline import write_report_and_headline
from scicon.params import load_key, load_section
from scicon.plots import write_training_curves
from scicon.stage import add_metrics_arguments, add_training_curve_arguments, run_stage, stage_parser


def main(args) -> None:
    params = load_section(args.params, "entailment", EntailmentParams)
    if params.train:
        data = entailment_data(params, load_key(args.params, "labelled_root"))
        result = train_entailment(data, params, Path(args.model))
    else:
        result = write_untrained(Path(args.model))
    write_training_curves(result, args.loss_plot, args.dev_plot)
    write_report_and_headline("entailment", result.metrics, args.figures, args.metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--model", required=True, help="output folder of the calibrated entailment judge")
    add_metrics_arguments(command)
    add_training_curve_arguments(command)
    return command


if __name__ == "__main__":
    run_stage(main, parser())
