"""Stage `finetune`: LoRA fine-tuning of a contradiction classifier on SciCon train.

Reads the SciCon folder; writes the adapter and tokenizer, `metrics/finetune.json`
(headline) and `reports/finetune.json` (every figure) and the training-loss and dev
ROC-AUC curves for `dvc plots`.
"""

from pathlib import Path

from scicon.headline import write_report_and_headline
from scicon.io import read_jsonl
from scicon.params import load_section
from scicon.plots import write_training_curves
from scicon.records.dataset import Example
from scicon.stage import add_metrics_arguments, add_training_curve_arguments, run_stage, stage_parser
from scicon.train.calibrate import calibrate_student
from scicon.train.lora import finetune
from scicon.train.params import FinetuneParams


def main(args) -> None:
    params = load_section(args.params, "finetune", FinetuneParams)
    scicon = Path(args.scicon)
    train = list(read_jsonl(scicon / "train.jsonl", Example))
    dev = list(read_jsonl(scicon / "dev.jsonl", Example))
    result = finetune(train, dev, params, Path(args.model))
    result.metrics["calibration"] = calibrate_student(Path(args.model), dev, params.calibration)
    write_training_curves(result, args.loss_plot, args.dev_plot)
    write_report_and_headline("finetune", result.metrics, args.figures, args.metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--scicon", required=True, help="SciCon folder with train.jsonl and dev.jsonl")
    command.add_argument("--model", required=True, help="output folder for adapter and tokenizer")
    add_metrics_arguments(command)
    add_training_curve_arguments(command)
    return command


if __name__ == "__main__":
    run_stage(main, parser())
