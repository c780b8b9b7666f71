"""Stage `build`: assemble SciCon from the entailing pairs, EvoNLI mutations and rule negatives.

Reads the sources listed in `build.sources` (the labelled sets of `build.labelled` under
`labelled_root` for the source `labelled`); writes train/dev/test as JSONL and Parquet
with a generated dataset card into the output folder, `metrics/build.json` (headline) and
`reports/build.json` (every figure) and the mutation-type distribution as plot data.
"""

from pathlib import Path

from scicon.dataset import assemble_scicon, write_scicon
from scicon.dataset.build import TAXONOMY_PLOT_FIELDS, taxonomy_plot_rows
from scicon.dataset.params import BuildParams
from scicon.dataset.sources import SourcePaths
from scicon.headline import write_report_and_headline
from scicon.params import load_key, load_section, load_thresholds
from scicon.plots import write_csv
from scicon.stage import add_metrics_arguments, run_stage, stage_parser


def main(args) -> None:
    params = load_section(args.params, "build", BuildParams)
    paths = SourcePaths(pairs=Path(args.pairs), evolve=Path(args.evolve), negatives=Path(args.negatives))
    labelled_root = load_key(args.params, "labelled_root")
    build = assemble_scicon(paths, params, load_thresholds(args.params), labelled_root)
    write_scicon(build, Path(args.out))
    write_report_and_headline("build", build.metrics, args.figures, args.metrics)
    write_csv(args.taxonomy_plot, taxonomy_plot_rows(build.metrics["mutation_types"]), TAXONOMY_PLOT_FIELDS)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--pairs", required=True, help="input JSONL of entailing pairs (source 'original')")
    command.add_argument("--evolve", required=True, help="input JSONL of accepted EvoNLI mutations")
    command.add_argument("--negatives", required=True, help="input JSONL of rule-based negatives")
    command.add_argument("--out", required=True, help="output folder for the SciCon splits and card")
    add_metrics_arguments(command)
    command.add_argument(
        "--taxonomy-plot", required=True, help="output CSV: mutation-type share per generator"
    )
    return command


if __name__ == "__main__":
    run_stage(main, parser())
