"""Stage `find`: contradicting findings across the ingested abstracts, ranked, on one page.

Reads the abstracts, the classifier of `find.classifier` and the verifier of `find.verifier`
(which re-reads the best-ranked pairs; marked untrained, none is); writes the ranked claim
pairs and the stance per question (`data/find`), `metrics/find.json` (headline),
`reports/find.json` (every figure) and the self-contained page `reports/find.html`
(docs/find.md).
"""

from pathlib import Path

from scicon.find.params import FindParams
from scicon.find.pipeline import finder_claim_settings, run_find, write_outputs
from scicon.fitted.filter_models import FilterModels
from scicon.headline import write_report_and_headline
from scicon.io import read_jsonl
from scicon.params import load_section
from scicon.records.corpus import Abstract
from scicon.stage import add_metrics_arguments, run_stage, stage_parser


def main(args) -> None:
    params = load_section(args.params, "find", FindParams)
    abstracts = list(read_jsonl(args.abstracts, Abstract))
    # one calibration of "same topic" and of "claim" per project, shared with EvoNLI's filters
    filters = load_section(args.params, "filter_models", FilterModels)
    claim = finder_claim_settings(filters.claim_model, params, args.params)
    result = run_find(params, filters.topic_model, claim, abstracts, origin=args.abstracts)
    write_outputs(result, params, Path(args.out), Path(args.page))
    write_report_and_headline("find", result.report, args.figures, args.metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--abstracts", required=True, help="input JSONL of abstracts")
    command.add_argument(
        "--out", required=True, help="output folder: contradictions.jsonl, stance_groups.jsonl"
    )
    command.add_argument("--page", required=True, help="output HTML page")
    add_metrics_arguments(command)
    return command


if __name__ == "__main__":
    run_stage(main, parser())
