"""Stage `evolve`: EvoNLI (Algorithm 1) over the entailing pairs.

Reads the pairs and abstracts; writes the accepted mutated pairs, the per-pair trace (also
the journal that lets an interrupted run resume), the success-by- generation plot data and
`metrics/evolve.json` (headline) and `reports/evolve.json` (every figure).
"""

from pathlib import Path

from scicon.backbones.params import BackboneParams
from scicon.candidates import CandidateParams
from scicon.evolve.params import EvolveParams
from scicon.evolve.pipeline import run_evolve, with_teacher
from scicon.fitted.filter_models import FilterModels
from scicon.headline import write_report_and_headline
from scicon.io import read_jsonl, write_json, write_jsonl
from scicon.params import load_section, load_thresholds
from scicon.records.corpus import Abstract
from scicon.records.pairs import Pair
from scicon.stage import add_metrics_arguments, run_stage, stage_parser


def main(args) -> None:
    params = load_section(args.params, "evolve", EvolveParams)
    if args.teacher:
        params = with_teacher(params, args.teacher)
    output = run_evolve(
        list(read_jsonl(args.pairs, Pair)),
        list(read_jsonl(args.abstracts, Abstract)),
        params,
        load_thresholds(args.params),
        load_section(args.params, "backbone", BackboneParams),
        journal=Path(args.trace),
        candidates=load_section(args.params, "candidates", CandidateParams),
        filter_models=load_section(args.params, "filter_models", FilterModels),
    )
    write_jsonl(args.accepted, output.accepted)
    write_json(args.success_plot, output.success_plot)
    write_report_and_headline("evolve", output.metrics, args.figures, args.metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--pairs", required=True, help="input JSONL of entailing pairs")
    command.add_argument("--abstracts", required=True, help="input JSONL of abstracts (context for rules)")
    command.add_argument("--accepted", required=True, help="output JSONL of accepted mutated pairs")
    command.add_argument("--trace", required=True, help="output JSONL trace per pair (the resume journal)")
    command.add_argument("--success-plot", required=True, help="output JSON of success by generation")
    add_metrics_arguments(command)
    command.add_argument(
        "--teacher",
        help="a classifier folder to search against instead of the configured goal (self-training)",
    )
    return command


if __name__ == "__main__":
    run_stage(main, parser())
