"""Stage `evaluate`: ROC-AUC of the fine-tuned classifier (and the zero-shot backbone) per benchmark.

Reads the benchmarks configured in `evaluate.benchmarks`, the classifier folder and
SciCon's training split (for the n-gram overlap); writes `metrics/evaluate.json` and
one ROC-curve CSV per benchmark and model into the plots folder.
"""

import contextlib
import shutil
from pathlib import Path

from scicon.backbones.params import BackboneParams
from scicon.evaluate import evaluate_benchmarks, load_benchmarks
from scicon.evaluate.params import EvaluateParams
from scicon.goal import LlmContradictionScorer
from scicon.io import read_jsonl, write_json
from scicon.params import load_section
from scicon.plots import write_csv
from scicon.records.dataset import Example
from scicon.stage import run_stage, stage_parser
from scicon.train import load_classifier, predict_contradiction


def main(args) -> None:
    params = load_section(args.params, "evaluate", EvaluateParams)
    benchmarks = load_benchmarks(params.benchmarks)
    model, tokenizer, max_length = load_classifier(Path(args.model))

    def finetuned(pairs):
        return predict_contradiction(model, tokenizer, pairs, max_length, params.batch_size)

    train = read_jsonl(Path(args.scicon) / "train.jsonl", Example)
    train_texts = [text for example in train for text in (example.sentence1, example.sentence2)]
    backbone_in_use = contextlib.nullcontext()
    if params.zero_shot:
        from scicon.backbones import load_backbone

        backbone_in_use = load_backbone(load_section(args.params, "backbone", BackboneParams))
    with backbone_in_use as backbone:
        teacher = LlmContradictionScorer(backbone) if backbone is not None else None
        evaluation = evaluate_benchmarks(benchmarks, params, finetuned, teacher, train_texts)
    if backbone is not None:
        evaluation.metrics["zero_shot_backbone"] = backbone.metrics()

    plots = Path(args.plots)
    shutil.rmtree(plots, ignore_errors=True)
    for name, points in evaluation.curves.items():
        write_csv(plots / f"{name}.csv", points, ("fpr", "tpr", "threshold"))
    write_json(args.metrics, evaluation.metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--model", required=True, help="fine-tuned classifier folder")
    command.add_argument(
        "--scicon", required=True, help="SciCon folder (its train split is the overlap reference)"
    )
    command.add_argument("--metrics", required=True, help="output metrics JSON")
    command.add_argument("--plots", required=True, help="output folder of ROC-curve CSVs")
    return command


if __name__ == "__main__":
    run_stage(main, parser())
