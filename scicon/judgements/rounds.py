"""The two ends of an annotation round: ``sample`` writes a round, ``read`` reads every round back."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from scicon.annotation.blinding import ANNOTATIONS, KEY_FILE
from scicon.classifier import ContradictionClassifier
from scicon.errors import InputFormatError, InputNotFoundError, ParamsError
from scicon.io import read_id_list, read_json_objects, read_jsonl, write_json, write_jsonl
from scicon.judgements.blinded import ASSIGNMENTS_FILE, write_round
from scicon.judgements.params import JudgementsParams
from scicon.judgements.pool import build_pool
from scicon.judgements.readback import (
    agreement,
    annotator_figures,
    judgements_of,
    read_round,
    shares_by,
)
from scicon.judgements.sample import assign, draw, refuse_reserved
from scicon.records.judgements import Judgement, RoundItem

log = logging.getLogger(__name__)


def add_sample_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--round", required=True, help="the round's name, e.g. r1 (its folder under --rounds)"
    )
    parser.add_argument(
        "--rounds", default="judgements/rounds", help="folder of rounds (default: %(default)s)"
    )
    parser.add_argument("--pairs", help="the pairs stage's pairs.jsonl")
    parser.add_argument(
        "--scicon",
        help="a built SciCon folder (data/scicon, a released one): what a build put into the "
        "dataset, its edits oriented by their pairs' original rows; instead of or beside --pairs",
    )
    parser.add_argument("--negatives", help="the negatives stage's negatives.jsonl")
    parser.add_argument("--trace", help="the evolve stage's trace.jsonl (accepted pairs and near misses)")
    parser.add_argument("--abstracts", help="ingested abstracts.jsonl (for conclusions of other abstracts)")
    parser.add_argument("--teacher", help="classifier folder whose doubt is over-represented (none: uniform)")
    parser.add_argument("--gold", required=True, help="gold JSON Lines whose items are the hidden controls")
    parser.add_argument(
        "--reserved",
        required=True,
        action="append",
        help="file of PMIDs (or PMCIDs) never to annotate, one a line; repeat for several "
        "(the gold items' abstracts, the held-out articles)",
    )
    parser.add_argument(
        "--instructions", required=True, help="the annotation instructions sent with each batch"
    )


def add_read_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rounds", default="judgements/rounds", help="folder of rounds (default: %(default)s)"
    )
    parser.add_argument(
        "--reserved",
        required=True,
        action="append",
        help="file of PMIDs (or PMCIDs) never to annotate: a judged one is an error; repeat for several",
    )
    parser.add_argument("--out", required=True, help="output JSON Lines: the labelled set (gold format)")
    parser.add_argument("--report", required=True, help="output JSON: annotators, agreement, shares")


def _round_folders(rounds: Path) -> list[Path]:
    """The rounds under ``rounds``: folders with a key and assignments (a finder review kept beside
    them, with a key of its own, is not one)."""
    return sorted(
        path
        for path in rounds.glob("*")
        if (path / KEY_FILE).is_file() and (path / ASSIGNMENTS_FILE).is_file()
    )


def _teacher_probabilities(folder: str | None, candidates) -> dict[str, float]:
    if folder is None:
        return {}

    classifier = ContradictionClassifier(folder)
    scores = classifier.contradiction_probabilities(
        [(c.sentence1, c.sentence2) for c in candidates], originals=[c.original for c in candidates]
    )
    return {c.candidate_id: float(p) for c, p in zip(candidates, scores, strict=True)}


def run_sample(args: argparse.Namespace, params: JudgementsParams, target: float) -> None:
    rounds = Path(args.rounds)
    folder = rounds / args.round
    if args.pairs is None and args.scicon is None:
        raise ParamsError("judgements sample: name the generators' --pairs, a built --scicon folder, or both")
    if folder.exists() and any((folder / ANNOTATIONS).glob("*.*")):
        raise ParamsError(f"{folder}: this round already has answers in {ANNOTATIONS}/; name a new round")
    reserved = frozenset().union(*(read_id_list(Path(path)) for path in args.reserved))
    # The controls are read before the pool is scored, so a wrong path costs seconds, not minutes.
    gold = [row for _, row in read_json_objects(Path(args.gold))]
    if params.controls_per_batch and not gold:
        raise InputFormatError(args.gold, "no gold items to use as controls")
    judged = frozenset(
        item.candidate_id
        for earlier in _round_folders(rounds)
        if earlier != folder
        for item in read_jsonl(earlier / KEY_FILE, RoundItem)
    )
    pool = build_pool(
        Path(args.pairs) if args.pairs else None,
        Path(args.negatives) if args.negatives else None,
        Path(args.trace) if args.trace else None,
        Path(args.abstracts) if args.abstracts else None,
        reserved,
        judged,
        target,
        params.near_miss_margin,
        params.other_abstract_per_abstract,
        built=Path(args.scicon) if args.scicon else None,
    )
    probabilities = _teacher_probabilities(args.teacher, pool.candidates)
    items, allocation = draw(pool, probabilities, params, args.round)
    refuse_reserved(items, reserved, str(folder / KEY_FILE))
    sample = assign(items, gold, params, args.round)
    manifest = {
        "round": args.round,
        "inputs": {
            name: getattr(args, name)
            for name in ("pairs", "scicon", "negatives", "trace", "abstracts", "teacher")
        },
        "target": target,
        "params": params.model_dump(mode="json"),
        "pool": {
            "candidates": len(pool.candidates),
            "reserved_skipped": pool.reserved_skipped,
            "judged_before": pool.already_judged,
            "duplicates": pool.duplicates,
        },
        "strata": allocation,
        "items": len(sample.items),
        "multi_read": sum(item.readers > 1 for item in sample.items),
        "controls": len(sample.controls),
        "batches": {name: len(ids) for name, ids in sample.assignments.items()},
        "uncertainty_sampling": "within each stratum, weight 1 + boost * (1 - |2p - 1|) on the teacher's P "
        "(contradiction); sampling_weight undoes it"
        if args.teacher
        else "none: no --teacher",
    }
    write_round(sample, manifest, Path(args.instructions), folder)
    log.info(
        "round %s: %d items (%d read by %d), %d controls, %d batches in %s",
        args.round,
        len(sample.items),
        manifest["multi_read"],
        params.readers,
        len(sample.controls),
        len(sample.assignments),
        folder,
    )


def run_read(args: argparse.Namespace, params: JudgementsParams) -> None:
    rounds = Path(args.rounds)
    folders = _round_folders(rounds)
    if not folders:
        raise InputNotFoundError(f"{rounds}: no round folder (with {KEY_FILE}) to read")
    reserved = frozenset().union(*(read_id_list(Path(path)) for path in args.reserved))
    judgements: list[Judgement] = []
    report: dict = {"rounds": {}}
    for folder in folders:
        answers = read_round(folder)
        annotators = annotator_figures(answers, params.min_control_accuracy, params.confidence_level)
        accepted = {name for name, figure in annotators.items() if figure["accepted"]}
        rows, reads_by_item = judgements_of(answers, accepted)
        refuse_reserved([answers.items[row.id] for row in rows], reserved, str(folder / KEY_FILE))
        readers = max((item.readers for item in answers.items.values()), default=1)
        report["rounds"][answers.name] = {
            "items": len(answers.items),
            "judged": len(rows),
            "annotators": annotators,
            "redo": sorted(
                name for name, figure in annotators.items() if figure["answered"] and not figure["accepted"]
            ),
            "agreement": agreement(reads_by_item, readers),
        }
        judgements += rows
    write_jsonl(Path(args.out), judgements)
    report["judged"] = len(judgements)
    report["labels"] = {
        label: sum(j.gold == label for j in judgements)
        for label in ("contradiction", "entailment", "neutral")
    }
    report["multi_read"] = sum(j.annotators > 1 for j in judgements)
    for facet in ("source", "operator", "mutation_type", "kind", "round"):
        report[f"by_{facet}"] = shares_by(judgements, facet)
    write_json(Path(args.report), report)
    log.info("judgements: %d items from %d rounds -> %s", len(judgements), len(folders), args.out)
