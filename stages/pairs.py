"""Stage `pairs`: entailing conclusion–conclusion and result–conclusion pairs per abstract.

Reads the ingested abstracts; writes the pairs, the skipped candidates with their reason,
and `metrics/pairs.json` (headline) and `reports/pairs.json` (every figure). With
`pairs.result_selector: llm` or `pairs.generate_missing_conclusions`, the backbone of
params `backbone` is used; with `pairs.result_selector: entailment` or
`pairs.min_entailment`, the entailment stage's judge (`pairs.entailment_model`) scores
every pair.
"""

import contextlib

from scicon.backbones import load_backbone
from scicon.backbones.params import BackboneParams
from scicon.headline import write_report_and_headline
from scicon.io import read_jsonl, write_jsonl
from scicon.pairing import build_pairs, make_selector
from scicon.pairing.entailment import EntailmentJudge
from scicon.pairing.params import PairsParams
from scicon.params import load_section
from scicon.records.corpus import Abstract
from scicon.stage import add_metrics_arguments, run_stage, stage_parser


def main(args) -> None:
    params = load_section(args.params, "pairs", PairsParams)
    abstracts = list(read_jsonl(args.abstracts, Abstract))
    backbone_in_use = contextlib.nullcontext()
    if params.result_selector == "llm" or params.generate_missing_conclusions:
        backbone_in_use = load_backbone(load_section(args.params, "backbone", BackboneParams))
    judge = None
    if params.uses_entailment:
        judge = EntailmentJudge(params.entailment_model)
    with backbone_in_use as backbone:
        selector, writer = make_selector(params, backbone, judge)
        result = build_pairs(abstracts, params, selector, writer, judge)
    if backbone is not None:
        result.metrics["backbone"] = backbone.metrics()
    write_jsonl(args.pairs, result.pairs)
    write_jsonl(args.skipped, result.skipped)
    write_report_and_headline("pairs", result.metrics, args.figures, args.metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--abstracts", required=True, help="input JSONL of abstracts")
    command.add_argument("--pairs", required=True, help="output JSONL of pairs")
    command.add_argument("--skipped", required=True, help="output JSONL of skipped candidates")
    add_metrics_arguments(command)
    return command


if __name__ == "__main__":
    run_stage(main, parser())
