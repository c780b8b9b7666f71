"""Stage `naturalness`: learn the naturalness check from the annotators' garbled marks.

Reads the judgements of `naturalness.judgements`; writes the check's folder, `metrics/naturalness.json`
(headline) and `reports/naturalness.json` (its out-of-sample ROC-AUC against the garbled marks,
grouped by abstract, beside the edit-size baseline). With `naturalness.train: false` the folder
only says it is untrained, and `build.naturalness: none`.
"""

from pathlib import Path

from scicon.headline import write_report_and_headline
from scicon.naturalness import NaturalnessParams, train_naturalness, write_untrained_check
from scicon.params import load_section
from scicon.readers.sets import GoldSpec
from scicon.stage import add_metrics_arguments, run_stage, stage_parser


def main(args) -> None:
    params = load_section(args.params, "naturalness", NaturalnessParams)
    gold = load_section(args.params, "gold", GoldSpec)
    model = Path(args.model)
    if params.train:
        metrics = train_naturalness(params, model, gold.bootstrap_resamples, gold.confidence_level)
    else:
        metrics = write_untrained_check(model)
    write_report_and_headline("naturalness", metrics, args.figures, args.metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--model", required=True, help="output folder of the naturalness check")
    add_metrics_arguments(command)
    return command


if __name__ == "__main__":
    run_stage(main, parser())
