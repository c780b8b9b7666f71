"""Stage `verifier`: train the second contradiction classifier the build's gate reads.

Reads the labelled NLI sets of `verifier.labelled` (under `labelled_root`) and, with
`verifier.refine`, the annotators' judgements; trains a three-way judge of plain pairs on
`verifier.training.base_model` and writes its folder, `metrics/verifier.json` (headline) and
`reports/verifier.json` (every figure, its gold figures and training throughput) and the loss
and dev curves. Training checkpoints into `--checkpoints` (the SciCon cache by default): killed and
rerun on the same inputs and code, it resumes from the last checkpoint. With `verifier.train:
false` (the demo's default) the folder only says it is untrained, and `build.verifier: none`.
"""

from pathlib import Path

from scicon.classifier_folder import write_untrained
from scicon.headline import write_report_and_headline
from scicon.params import load_key, load_section
from scicon.plots import write_training_curves
from scicon.readers.sets import GoldSpec
from scicon.stage import add_metrics_arguments, add_training_curve_arguments, run_stage, stage_parser
from scicon.teacher.train import TeacherResult
from scicon.verifier.train import VerifierParams, default_checkpoints, train_verifier


def main(args) -> None:
    params = load_section(args.params, "verifier", VerifierParams)
    if params.train:
        result = train_verifier(
            params,
            load_key(args.params, "labelled_root"),
            Path(args.model),
            load_section(args.params, "gold", GoldSpec),
            Path(args.checkpoints) if args.checkpoints else default_checkpoints(),
        )
    else:
        write_untrained(Path(args.model), "verifier.train is false: set it true to train the verifier")
        result = TeacherResult({"trained": False}, [], [])
    write_training_curves(result, args.loss_plot, args.dev_plot)
    write_report_and_headline("verifier", result.metrics, args.figures, args.metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--model", required=True, help="output folder of the calibrated verifier")
    command.add_argument(
        "--checkpoints",
        help="folder of resumable training checkpoints (default: <SciCon cache>/checkpoints/verifier)",
    )
    add_metrics_arguments(command)
    add_training_curve_arguments(command)
    return command


if __name__ == "__main__":
    run_stage(main, parser())
