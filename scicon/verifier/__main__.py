"""`python -m scicon.verifier readback`: the gate's operating points on annotators' reads.

Scores every generated contradiction of the read-backs (the gold format of `python -m
scicon.judgements read`) with the verifier (plain pairs) and the naturalness check, and writes,
per verifier threshold and naturalness ceiling, how many the gate keeps and the share of those
that the annotators read as contradictions and as garbled, with Wilson intervals, overall and by
source (rule operator, EvoNLI). Read-backs of rounds the verifier never learnt from are out of
sample: choose ``build.min_verifier`` and ``build.max_garbled`` there, never on gold dev or the
held-out articles' reads, which only report.
"""

from __future__ import annotations

import argparse
import logging
from collections import defaultdict
from pathlib import Path

import numpy as np

from scicon.annotation.intervals import share_with_interval
from scicon.classifier import plain_pairs_classifier
from scicon.dataset.gate import judged_source
from scicon.io import read_jsonl, write_json
from scicon.naturalness import NaturalnessCheck
from scicon.params import meets_threshold
from scicon.records.judgements import Judgement
from scicon.stage import run_stage

log = logging.getLogger(__name__)

THRESHOLDS = tuple(round(0.05 * step, 2) for step in range(19))  # 0.0, 0.05, ..., 0.9
CEILINGS = (1.0, 0.6, 0.5, 0.4, 0.3)


def operating_points(
    reads: list[Judgement], verifier: np.ndarray, garbled: np.ndarray | None, level: float
) -> list[dict]:
    """For each (threshold, ceiling): what the gate keeps and how it reads, overall and by source."""
    rows = []
    for ceiling in CEILINGS if garbled is not None else (1.0,):
        for threshold in THRESHOLDS:
            keep = [
                meets_threshold(float(p), threshold) and (garbled is None or g <= ceiling)
                for p, g in zip(verifier, garbled if garbled is not None else verifier, strict=True)
            ]
            kept = [read for read, passes in zip(reads, keep, strict=True) if passes]
            groups: dict[str, list[Judgement]] = defaultdict(list)
            for read in kept:
                groups[judged_source(read)].append(read)
            rows.append(
                {
                    "min_verifier": threshold,
                    "max_garbled": ceiling,
                    "kept": len(kept),
                    "of": len(reads),
                    "contradiction": share_with_interval(
                        sum(r.contradiction for r in kept), len(kept), level
                    ),
                    "garbled": share_with_interval(sum(r.garbled for r in kept), len(kept), level),
                    "by_source": {
                        name: share_with_interval(sum(r.contradiction for r in group), len(group), level)
                        for name, group in sorted(groups.items())
                    },
                }
            )
    return rows


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(prog="python -m scicon.verifier", description=__doc__)
    steps = command.add_subparsers(dest="step", required=True)
    readback = steps.add_parser("readback", help="the gate's precision and yield on read-backs")
    readback.add_argument("--verifier", required=True, help="the verifier's classifier folder")
    readback.add_argument("--naturalness", help="the naturalness check's folder (none: not applied)")
    readback.add_argument("--reads", required=True, action="append", help="read-backs (gold format); repeat")
    readback.add_argument("--rounds", nargs="*", help="only the reads of these rounds (default: all)")
    readback.add_argument("--confidence-level", type=float, default=0.95)
    readback.add_argument("--out", required=True, help="output JSON of the operating points")
    return command


def main(args: argparse.Namespace) -> None:
    reads = [
        judgement
        for path in args.reads
        for judgement in read_jsonl(Path(path), Judgement)
        if judged_source(judgement) is not None and (not args.rounds or judgement.round in args.rounds)
    ]
    verifier = plain_pairs_classifier(args.verifier, "--verifier")
    probabilities = verifier.contradiction_probabilities([(r.sentence1, r.sentence2) for r in reads])
    garbled = None
    if args.naturalness:
        garbled = NaturalnessCheck(args.naturalness).garbled_probabilities(
            [(r.original, r.sentence2) for r in reads]
        )
    points = operating_points(reads, probabilities, garbled, args.confidence_level)
    write_json(
        Path(args.out),
        {
            "verifier": args.verifier,
            "naturalness": args.naturalness,
            "reads": args.reads,
            "rounds": args.rounds,
            "items": len(reads),
            "points": points,
            "scores": [
                {
                    "id": r.id,
                    "verifier": round(float(p), 5),
                    "garbled": None if garbled is None else round(float(g), 5),
                }
                for r, p, g in zip(
                    reads, probabilities, garbled if garbled is not None else probabilities, strict=True
                )
            ],
        },
    )
    for row in points:
        figure = row["contradiction"]
        log.info(
            "min_verifier %.2f max_garbled %.2f: keeps %d of %d, precision %s %s, garbled %s",
            row["min_verifier"],
            row["max_garbled"],
            row["kept"],
            row["of"],
            figure["share"],
            figure["interval"],
            row["garbled"]["share"],
        )


if __name__ == "__main__":
    run_stage(main, parser())
