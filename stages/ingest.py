"""Stage `ingest`: read `ingest.source` into one JSON record per abstract.

Writes the abstracts, the records it skipped (with file, line and reason) and
`metrics/ingest.json`.
"""

from scicon.corpus import ingest
from scicon.corpus.params import IngestParams
from scicon.io import write_json, write_jsonl
from scicon.params import load_section
from scicon.paths import cache_root
from scicon.stage import run_stage, stage_parser


def main(args) -> None:
    params = load_section(args.params, "ingest", IngestParams)
    result = ingest(params, cache_dir=cache_root())
    write_jsonl(args.abstracts, result.abstracts)
    write_jsonl(args.skipped, result.skipped)
    write_json(args.metrics, result.metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--abstracts", required=True, help="output JSONL of abstracts")
    command.add_argument("--skipped", required=True, help="output JSONL of skipped records")
    command.add_argument("--metrics", required=True, help="output metrics JSON")
    return command


if __name__ == "__main__":
    run_stage(main, parser())
