"""Stage `build`: assemble SciCon from the entailing pairs, EvoNLI mutations and rule negatives.

Reads the sources listed in `build.sources` (the labelled sets of `build.labelled` under
`labelled_root` for the source `labelled`); writes train/dev/test as JSONL and Parquet
with a generated dataset card into the output folder (with the judge's gold figures, from
`--judge` and `gold`, and the blind read of `card.blind_read`), `metrics/build.json` (headline) and
`reports/build.json` (every figure) and the mutation-type distribution as plot data.
"""

from pathlib import Path

from scicon.dataset import assemble_scicon, write_scicon
from scicon.dataset.build import TAXONOMY_PLOT_FIELDS, taxonomy_plot_rows
from scicon.dataset.gate import GATE_CURVE_FIELDS
from scicon.dataset.params import BuildParams
from scicon.dataset.quality import CardParams, add_measures, judge_gold_figures
from scicon.dataset.sources import SourcePaths
from scicon.headline import write_report_and_headline
from scicon.params import load_key, load_section, load_thresholds
from scicon.plots import write_csv
from scicon.readers.sets import GoldSpec
from scicon.stage import add_metrics_arguments, run_stage, stage_parser
from scicon.verifier.gate import build_gate


def main(args) -> None:
    params = load_section(args.params, "build", BuildParams)
    paths = SourcePaths(pairs=Path(args.pairs), evolve=Path(args.evolve), negatives=Path(args.negatives))
    labelled_root = load_key(args.params, "labelled_root")
    gold = load_section(args.params, "gold", GoldSpec)
    gate = build_gate(params, gold.confidence_level)
    build = assemble_scicon(paths, params, load_thresholds(args.params), labelled_root, gate)
    add_measures(
        build, _judge_figures(args), load_section(args.params, "card", CardParams), gold.confidence_level
    )
    write_scicon(build, Path(args.out))
    write_report_and_headline("build", build.metrics, args.figures, args.metrics)
    write_csv(args.taxonomy_plot, taxonomy_plot_rows(build.metrics["mutation_types"]), TAXONOMY_PLOT_FIELDS)
    write_csv(args.gate_plot, build.gate_curve, GATE_CURVE_FIELDS)


def _judge_figures(args) -> dict:
    """The gold figures of the classifier EvoNLI's goal used, if it used one."""
    from scicon.teacher.gold import gold_figures  # start-up: torch and transformers

    gold = load_section(args.params, "gold", GoldSpec)
    if args.goal != "classifier":
        why = f"evolve.goal is {args.goal!r}: EvoNLI searched against no classifier"
        return judge_gold_figures(None, gold, gold_figures, why)
    return judge_gold_figures(Path(args.judge), gold, gold_figures)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--pairs", required=True, help="input JSONL of entailing pairs (source 'original')")
    command.add_argument("--evolve", required=True, help="input JSONL of accepted EvoNLI mutations")
    command.add_argument("--negatives", required=True, help="input JSONL of rule-based negatives")
    command.add_argument("--out", required=True, help="output folder for the SciCon splits and card")
    command.add_argument(
        "--judge",
        required=True,
        help="the classifier folder of EvoNLI's goal (evolve.settings.goal.classifier.model): "
        "its gold figures go into the report and the card",
    )
    command.add_argument(
        "--goal",
        required=True,
        help="evolve.goal: the judge's figures are measured only when it is `classifier`",
    )
    add_metrics_arguments(command)
    command.add_argument(
        "--taxonomy-plot", required=True, help="output CSV: mutation-type share per generator"
    )
    command.add_argument(
        "--gate-plot",
        required=True,
        help="output CSV: precision (on read pairs) and yield of the kept contradictions by "
        "verifier threshold",
    )
    return command


if __name__ == "__main__":
    run_stage(main, parser())
