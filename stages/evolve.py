"""Stage `evolve`: EvoNLI (Algorithm 1) over the entailing pairs.

Reads the pairs and abstracts; writes the accepted mutated pairs, the per-pair
trace (also the journal that lets an interrupted run resume), the success-by-
generation plot data and `metrics/evolve.json`.
"""

import contextlib
import time
from pathlib import Path

from scicon.backbones.params import BackboneParams
from scicon.evolve.params import EvolveParams
from scicon.evolve.recipes import build_searches, needs_backbone, recipe_name
from scicon.evolve.runner import config_digest, evolve_metrics, run_searches, success_by_generation
from scicon.io import read_jsonl, write_json, write_jsonl
from scicon.params import load_section, load_thresholds, result_settings
from scicon.records.corpus import Abstract
from scicon.records.pairs import Pair
from scicon.stage import run_stage, stage_parser


def main(args) -> None:
    params = load_section(args.params, "evolve", EvolveParams)
    thresholds = load_thresholds(args.params)
    pairs = [pair for pair in read_jsonl(args.pairs, Pair) if pair.kind in params.pair_kinds]
    pairs = pairs[: params.max_pairs]
    abstracts = {abstract.pmid: abstract for abstract in read_jsonl(args.abstracts, Abstract)}
    backbone_in_use = contextlib.nullcontext()
    backbone_settings = None
    if needs_backbone(params):
        from scicon.backbones import load_backbone

        backbone_params = load_section(args.params, "backbone", BackboneParams)
        backbone_settings = result_settings(backbone_params)
        backbone_in_use = load_backbone(backbone_params)
    with backbone_in_use as backbone:
        searches = build_searches(params, thresholds, backbone, list(abstracts.values()))
        digest = config_digest(
            params.model_dump(mode="json", exclude={"workers", "max_pairs"}),
            thresholds.model_dump(),
            backbone_settings,
            backbone.identity_digest if backbone else None,
        )
        started = time.perf_counter()
        result = run_searches(
            pairs,
            searches,
            journal=Path(args.trace),
            config_digest=digest,
            recipe=recipe_name(params),
            seed=params.seed,
            abstracts=abstracts,
            backbone=backbone,
            workers=params.workers,
        )
        metrics = evolve_metrics(result.traces, thresholds, time.perf_counter() - started, backbone)
    metrics["recipe"] = recipe_name(params)
    metrics["resumed_pairs"] = result.resumed
    write_jsonl(args.accepted, result.accepted)
    write_json(args.success_plot, success_by_generation(result.traces, params.max_iterations))
    write_json(args.metrics, metrics)


def parser():
    command = stage_parser(__doc__)
    command.add_argument("--pairs", required=True, help="input JSONL of entailing pairs")
    command.add_argument("--abstracts", required=True, help="input JSONL of abstracts (context for rules)")
    command.add_argument("--accepted", required=True, help="output JSONL of accepted mutated pairs")
    command.add_argument("--trace", required=True, help="output JSONL trace per pair (the resume journal)")
    command.add_argument("--success-plot", required=True, help="output JSON of success by generation")
    command.add_argument("--metrics", required=True, help="output metrics JSON")
    return command


if __name__ == "__main__":
    run_stage(main, parser())
