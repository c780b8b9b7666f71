"""Stance per question, each method against blind readers: which claims of one question take one side.

``perf/find_dev.py --run-out`` keeps, for each setting, every stance method's groups
(``stance_methods.json``: the pair-flag groups of before and the two-way splits); a review
folder with stance items (``python -m scicon.find review-export --stances N`` then
``review-read``) holds what blind readers answered for a sample of those claims
(``stances.jsonl``: yes, no or neither to the claim's question). Two claims of one question
the readers answered yes and no take opposite sides, yes and yes (or no and no) the same side;
each method is scored on those pairs as ``find_dev`` scores it on HealthVer's evidence labels,
and the readers' sides are compared with the evidence labels' where both give one.

    python -m perf.find_stance_read --run data/find-healthver/question-given \\
        --review judgements/audits/find-healthver-question-given --healthver healthver_dev.csv \\
        --out reports/perf/find_stance_read.json
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

from perf.find_dev import Truth, read_healthver, stance_accuracy
from scicon.annotation.intervals import share_with_interval
from scicon.find.review import STANCES_FILE
from scicon.io import read_json_objects, write_json
from scicon.params import load_section
from scicon.readers.sets import GoldSpec

SIDES = ("yes", "no")


def readers_truth(rows: list[dict]) -> Truth:
    """The sides the readers' answers give: pairs of one question both answered yes or no."""
    question_of = {row["claim_id"]: row["question"] for row in rows}
    answer = {row["claim_id"]: row["reader"] for row in rows if row["reader"] in SIDES}
    relation = {}
    for a, b in itertools.combinations(sorted(answer), 2):
        if question_of[a] == question_of[b]:
            relation[(a, b)] = 1 if answer[a] == answer[b] else -1
    return Truth(question_of, relation)


def agreement_with_evidence(readers: Truth, evidence: Truth, level: float) -> dict:
    """Of the pairs both the readers and HealthVer's evidence labels side, how many agree."""
    both = set(readers.relation) & set(evidence.relation)
    return share_with_interval(
        sum(readers.relation[pair] == evidence.relation[pair] for pair in both), len(both), level
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", required=True, type=Path, help="a setting's folder of find_dev --run-out")
    parser.add_argument("--review", required=True, type=Path, help="the review folder read with stance items")
    parser.add_argument("--healthver", type=Path, help="healthver_dev.csv, to compare the readers' sides")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument(
        "--params", default="params.yaml", help="parameters file: the intervals at gold.confidence_level"
    )
    args = parser.parse_args(argv)
    level = load_section(args.params, "gold", GoldSpec).confidence_level
    rows = [row for _, row in read_json_objects(args.review / STANCES_FILE)]
    truth = readers_truth(rows)
    methods = json.loads((args.run / "stance_methods.json").read_text(encoding="utf-8"))
    figures = {
        "claims_read": len(rows),
        "pairs_sided_by_readers": len(truth.relation),
        "methods": {name: stance_accuracy(groups, truth, level) for name, groups in methods.items()},
    }
    if args.healthver:
        _, evidence = read_healthver(args.healthver)
        figures["readers_against_evidence_labels"] = agreement_with_evidence(truth, evidence, level)
    write_json(args.out, figures)
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
