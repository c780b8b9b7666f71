"""Stage `negatives`: rule-based contradictions and label-preserving controls for every pair.

Reads the pairs and the abstracts they come from (numbers and entity names for the swaps);
writes the negatives, what could not be made or was filtered out with its reason, and
`metrics/negatives.json` (headline) and `reports/negatives.json` (every figure). The
operators are `candidates.operators` and `negatives.filters` applies the checks of params
`candidates` (grounded, fluent): the same that make and check a search candidate.
"""

import contextlib

from scicon.candidates import CandidateParams, loaded_fluency_scorer
from scicon.headline import write_report_and_headline
from scicon.io import read_jsonl, write_jsonl
from scicon.params import load_section
from scicon.records.corpus import Abstract
from scicon.records.pairs import Pair
from scicon.rules.generators import build_negatives
from scicon.rules.params import NegativesParams
from scicon.stage import add_metrics_arguments, run_stage, stage_parser


def main(args) -> None:
    params = load_section(args.params, "negatives", NegativesParams)
    abstracts = {abstract.pmid: abstract for abstract in read_jsonl(args.abstracts, Abstract)}
    pairs = list(read_jsonl(args.pairs, Pair))
    candidates = load_section(args.params, "candidates", CandidateParams)
    grounding = candidates.grounding if "grounded" in params.filters else None
    scorer = loaded_fluency_scorer(candidates.fluency) if "fluent" in params.filters else None
    with scorer if scorer is not None else contextlib.nullcontext() as fluency:
        result = build_negatives(pairs, abstracts, params, candidates.operators, grounding, fluency)
    write_jsonl(args.negatives, result.negatives)
    write_jsonl(args.skipped, result.skipped)
    write_report_and_headline("negatives", result.metrics, args.figures, args.metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--pairs", required=True, help="input JSONL of pairs")
    command.add_argument("--abstracts", required=True, help="input JSONL of abstracts (context for swaps)")
    command.add_argument("--negatives", required=True, help="output JSONL of rule negatives")
    command.add_argument("--skipped", required=True, help="output JSONL of what no operator could edit")
    add_metrics_arguments(command)
    return command


if __name__ == "__main__":
    run_stage(main, parser())
