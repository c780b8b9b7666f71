"""Stage `ingest`: read `ingest.source` into one JSON record per abstract.

Writes the abstracts, the records it skipped (with file, line and reason) and
`metrics/ingest.json` (headline) and `reports/ingest.json` (every figure).
"""

from scicon.corpus import ingest
from scicon.corpus.params import IngestParams
from scicon.headline import write_report_and_headline
from scicon.io import write_jsonl
from scicon.params import load_section
from scicon.paths import cache_root
from scicon.stage import add_metrics_arguments, run_stage, stage_parser


def main(args) -> None:
    params = load_section(args.params, "ingest", IngestParams)
    params.require_watched()
    result = ingest(params, cache_dir=cache_root())
    write_jsonl(args.abstracts, result.abstracts)
    write_jsonl(args.skipped, result.skipped)
    write_report_and_headline("ingest", result.metrics, args.figures, args.metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--abstracts", required=True, help="output JSONL of abstracts")
    command.add_argument("--skipped", required=True, help="output JSONL of skipped records")
    add_metrics_arguments(command)
    return command


if __name__ == "__main__":
    run_stage(main, parser())
