"""`python -m scicon.find {run,review-export,review-read,page}`: the finder outside the DAG.

``run`` finds contradicting claims in any corpus: structured abstracts (the ingest format,
or a PubMed RCT text file read as the ingest stage reads it) or a claims file (see
:mod:`scicon.find.claims`, which then needs abstracts to calibrate the same-topic model on).
``review-export`` and ``review-read`` are the blind review of :mod:`scicon.find.review` (its
intervals at ``gold.confidence_level``: the level every blind read of the project is reported
at); ``page`` re-renders the page with the reviewed labels.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from scicon.errors import ParamsError
from scicon.find.claims import read_claims_file
from scicon.find.params import FindParams
from scicon.find.pipeline import finder_claim_settings, read_outputs, run_find, write_outputs, write_page
from scicon.find.review import export_review, read_review, read_reviewed
from scicon.fitted.filter_models import FilterModels
from scicon.io import read_id_list, read_jsonl, write_json
from scicon.params import load_section
from scicon.readers.sets import GoldSpec
from scicon.records.corpus import Abstract
from scicon.stage import run_stage


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(prog="python -m scicon.find", description=__doc__)
    command.add_argument(
        "--params", default="params.yaml", help="parameters file (its `find` section; `gold` for review-read)"
    )
    steps = command.add_subparsers(dest="step", required=True)
    run = steps.add_parser("run", help="find contradicting claims in a corpus")
    run.add_argument("--abstracts", required=True, help="JSONL of abstracts as the ingest stage writes them")
    run.add_argument(
        "--claims",
        help="claims file (JSONL or TSV: id, text, group, pmid, question) instead of the abstracts' claims",
    )
    run.add_argument("--classifier", help="classifier folder (default: find.classifier)")
    run.add_argument(
        "--verifier", help="verifier folder that re-reads the best-ranked pairs (default: find.verifier)"
    )
    run.add_argument("--out", required=True, help="output folder: contradictions.jsonl, stance_groups.jsonl")
    run.add_argument("--page", required=True, help="output HTML page")
    run.add_argument("--report", required=True, help="output JSON of every figure")
    export = steps.add_parser(
        "review-export", help="blind batches of the best-ranked and below-threshold pairs"
    )
    export.add_argument("--out", required=True, help="the folder `run` wrote")
    export.add_argument("--folder", required=True, help="new review folder")
    export.add_argument("--top", type=int, default=50, help="best-ranked pairs to read")
    export.add_argument("--below", type=int, default=50, help="comparable pairs not flagged, sampled")
    export.add_argument("--annotators", type=int, default=1)
    export.add_argument(
        "--gold", type=Path, help="gold pairs (JSONL: id, sentence1, sentence2, gold) to hide as controls"
    )
    export.add_argument("--controls-per-batch", type=int, default=0)
    export.add_argument("--seed", type=int, default=0)
    export.add_argument("--reserved", type=Path, help="PMIDs never to send to annotators, one a line")
    export.add_argument(
        "--stances", type=int, default=0, help="claims given a stance to ask their question (needs its text)"
    )
    read = steps.add_parser("review-read", help="precision at k from the answers of a review folder")
    read.add_argument("--folder", required=True)
    read.add_argument("--report", required=True, help="output JSON of the review's figures")
    page = steps.add_parser("page", help="render the page again, with reviewed labels")
    page.add_argument("--out", required=True, help="the folder `run` wrote")
    page.add_argument("--report", required=True, help="the report `run` wrote")
    page.add_argument("--reviewed", type=Path, help="reviewed.jsonl of a review folder")
    page.add_argument("--page", required=True)
    return command


def main(args: argparse.Namespace) -> None:
    params = load_section(args.params, "find", FindParams)
    steps = {"run": _run, "review-export": _review_export, "review-read": _review_read, "page": _page}
    steps[args.step](args, params)


def _run(args: argparse.Namespace, params: FindParams) -> None:
    if args.classifier:
        params = params.model_copy(update={"classifier": args.classifier})
    if args.verifier:
        params = params.model_copy(update={"verifier": args.verifier})
    filters = load_section(args.params, "filter_models", FilterModels)
    topic = filters.topic_model
    claim = finder_claim_settings(filters.claim_model, params, args.params)
    abstracts = list(read_jsonl(args.abstracts, Abstract))
    claims = read_claims_file(args.claims) if args.claims else None
    result = run_find(params, topic, claim, abstracts, claims, origin=args.claims or args.abstracts)
    write_outputs(result, params, Path(args.out), Path(args.page))
    write_json(args.report, result.report)


def _review_export(args: argparse.Namespace, params: FindParams) -> None:
    if args.annotators < 1:
        raise ParamsError("--annotators: at least 1")
    if args.stances < 0:
        raise ParamsError("--stances: 0 or more")
    pairs, groups = read_outputs(Path(args.out))
    manifest = export_review(
        pairs,
        Path(args.folder),
        top=args.top,
        below=args.below,
        annotators=args.annotators,
        seed=args.seed,
        gold=args.gold,
        controls_per_batch=args.controls_per_batch,
        reserved=read_id_list(args.reserved) if args.reserved else frozenset(),
        groups=groups,
        stances=args.stances,
    )
    print(json.dumps(manifest, indent=2))


def _review_read(args: argparse.Namespace, params: FindParams) -> None:
    figures = read_review(Path(args.folder), load_section(args.params, "gold", GoldSpec).confidence_level)
    write_json(args.report, figures)
    shown = ("precision_at", "not_comparable", "controls", "missing", "stance")
    print(json.dumps({key: figures[key] for key in shown if key in figures}, indent=2))


def _page(args: argparse.Namespace, params: FindParams) -> None:
    pairs, groups = read_outputs(Path(args.out))
    report = json.loads(Path(args.report).read_text(encoding="utf-8"))
    reviews = read_reviewed(args.reviewed) if args.reviewed else None
    write_page(pairs, groups, report, params, Path(args.page), reviews)


if __name__ == "__main__":
    run_stage(main, parser())
