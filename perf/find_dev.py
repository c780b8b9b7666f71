"""The finder where questions are shared: HealthVer dev's claims, measured without annotators.

HealthVer dev holds 1,917 (evidence, claim) pairs, each claim made about one of 58 questions
("Does vitamin D impact COVID-19 prevention and treatment?") and labelled Supports, Refutes or
Neutral against its evidence. That gives two truths a finder is measured against:

- **which claims share a question** (its ``question`` column): the share of same-question
  pairs among the candidates, against what they cost (pairs scored, seconds);
- **which side of its question a claim takes, relative to another**: two claims of one
  question read against the same evidence, one Supports and the other Refutes it, take
  opposite sides; both Supports (or both Refutes), the same side. Summed over the evidence
  they share (a tie, or Neutral only: unknown). Stance accuracy is the share of such pairs
  whose two claims the finder puts on the sides the evidence says, among those it places.

The claims are the distinct claim texts, each a study of its own, with the ids of the earlier
run in docs/find.md (``hv-NNN`` in order of first appearance). Each setting is a set of
``find`` changes (``--setting name:key=value,key=value``; ``question=1`` gives every claim its
question, which blocks the candidates by it); ``--run-out`` keeps each setting's run, a folder
``python -m scicon.find review-export`` reads. Scores are computed once per sentence pair and
shared by the settings: each setting's scoring seconds are its pairs at the rate measured.
Stance per question is compared across methods on each setting's scored pairs. A trained
``--verifier`` (default ``find.verifier``) re-reads each setting's ``find.verifier_top``
best-ranked scored pairs (``verifier_top=0`` in a setting: none), its scores shared the same way;
each setting is priced at the verifier's measured rate too, as if it read every scored pair.

    python -m perf.find_dev --healthver /abs/path/healthver_dev.csv --abstracts abstracts.jsonl \\
        --classifier models/teacher --verifier models/verifier --out reports/perf/find_dev.json \\
        --run-out data/find-healthver
"""

from __future__ import annotations

import argparse
import csv
import itertools
import math
import re
import time
from collections import Counter, defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scicon.annotation.intervals import share_with_interval
from scicon.find.params import FindParams
from scicon.find.pipeline import caching_encoder, finder_claim_settings, finder_models, write_outputs
from scicon.find.run import FindResult, Verifier, find_contradictions
from scicon.find.stance import Edge, clusters, stance_groups
from scicon.fitted.filter_models import FilterModels
from scicon.io import read_json_objects, read_jsonl, write_json
from scicon.params import load_section
from scicon.readers.sets import GoldSpec
from scicon.records.corpus import Abstract
from scicon.records.find import Claim
from scicon.textdiff import normalised_sentence

SIGNS = {"Supports": 1, "Refutes": -1, "Neutral": 0}
DEFAULT_SETTINGS = (
    "default:",
    "neighbours 30:neighbours=30",
    "shared terms:shared_term_route=1",
    "question given:question=1,neighbours=20",
)
KS = (10, 25, 50)


@dataclass(frozen=True)
class Truth:
    question_of: dict[str, str]  # claim id -> its question
    relation: dict[tuple[str, str], int]  # (id, id) sorted -> +1 same side, -1 opposite sides

    def same_question(self, a: str, b: str) -> bool:
        return self.question_of[a] == self.question_of[b]

    def same_question_pairs(self) -> int:
        sizes = Counter(self.question_of.values())
        return sum(n * (n - 1) // 2 for n in sizes.values())


def read_healthver(path: Path) -> tuple[list[Claim], Truth]:
    """The distinct claims (ids as docs/find.md's earlier run), and what the labels say."""
    texts: dict[str, str] = {}
    question: dict[str, str] = {}
    signs: dict[str, dict[str, int]] = defaultdict(dict)
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            text = " ".join(row["claim"].split())
            key = normalised_sentence(text)
            texts.setdefault(key, text)
            question.setdefault(key, row["question"].strip())
            signs[key][normalised_sentence(row["evidence"])] = SIGNS[row["label"]]
    ids = {key: f"hv-{number:03d}" for number, key in enumerate(texts)}
    claims = [Claim(claim_id=ids[key], text=text, group=ids[key]) for key, text in texts.items()]
    relation = {}
    for a, b in itertools.combinations(texts, 2):
        if question[a] != question[b]:
            continue
        total = sum(signs[a][e] * signs[b][e] for e in set(signs[a]) & set(signs[b]))
        if total:
            relation[tuple(sorted((ids[a], ids[b])))] = 1 if total > 0 else -1
    return claims, Truth({ids[key]: question[key] for key in texts}, relation)


def candidate_figures(
    result: FindResult, truth: Truth, rate: float, level: float, verifier_rate: float | None = None
) -> dict:
    """Same-question pairs among the candidates, the kept and the scored pairs, against the cost
    (the verifier's too, at its measured rate, when one re-read pairs)."""
    report = result.report
    kept = [(pair.a.claim_id, pair.b.claim_id) for pair in result.pairs]
    scored = [(pair.a.claim_id, pair.b.claim_id) for pair in result.pairs if pair.score is not None]
    total = truth.same_question_pairs()
    return {
        "claims": report["claims"],
        "non_claims_left_out": report["non_claims"]["left_out"],
        "candidate_pairs": report["candidate_pairs"],
        "candidate_routes": report["candidate_routes"],
        "same_question_pairs_in_corpus": total,
        "same_question_recall_kept": share_with_interval(
            sum(truth.same_question(a, b) for a, b in kept), total, level
        ),
        "same_question_recall_scored": share_with_interval(
            sum(truth.same_question(a, b) for a, b in scored), total, level
        ),
        "same_question_share_of_scored": share_with_interval(
            sum(truth.same_question(a, b) for a, b in scored), len(scored), level
        ),
        "pairs_scored_both_orders": 2 * len(scored),
        "seconds": {
            "candidates": report["timings"]["seconds"]["candidates"],
            "scoring_at_measured_rate": round(2 * len(scored) / rate, 1) if rate else None,
            "verifier_scoring_every_scored_pair_at_measured_rate": (
                round(2 * len(scored) / verifier_rate, 1) if verifier_rate else None
            ),
        },
        "reread": {"pairs": report["reread"]["pairs"], "off": report["reread"]["off"]},
        "flag": report["flag"],
        "flagged": report["flagged"],
    }


def ranking_figures(result: FindResult, truth: Truth, level: float) -> dict:
    """Precision at k of the ranked pairs, against two truths the labels give without a reader:
    the pair shares a question, and the evidence puts its claims on opposite sides."""
    ranked = [(pair.a.claim_id, pair.b.claim_id) for pair in result.pairs if pair.score is not None]
    figures = {}
    for k in KS:
        top = ranked[:k]
        opposite = sum(truth.relation.get(tuple(sorted(p))) == -1 for p in top)
        figures[str(k)] = {
            "same_question": share_with_interval(
                sum(truth.same_question(a, b) for a, b in top), len(top), level
            ),
            "opposite_by_evidence": share_with_interval(opposite, len(top), level),
        }
    return figures


def read_labels(path: Path | None) -> dict[tuple[str, str], str]:
    """Labels readers gave pairs of these claims in an earlier blind read (``reviewed.jsonl``)."""
    if path is None:
        return {}
    labels = {}
    for _, row in read_json_objects(path):
        a, b = row["pair_id"].split("|")
        labels[tuple(sorted((a, b)))] = row["label"]
    return labels


def read_before(result: FindResult, labels: dict[tuple[str, str], str], level: float) -> dict:
    """Precision at k over the ranked pairs an earlier read labelled: a cheap look, not a read."""
    ranked = [tuple(sorted((p.a.claim_id, p.b.claim_id))) for p in result.pairs if p.score is not None]
    figures = {}
    for k in KS:
        known = [labels[pair] for pair in ranked[:k] if pair in labels]
        figures[str(k)] = share_with_interval(
            sum(label == "contradiction" for label in known), len(known), level
        )
    return figures


def stance_accuracy(stances: Sequence[dict[str, str]], truth: Truth, level: float) -> dict:
    """Pairs whose sides the evidence gives, placed by the method (both claims yes or no in one
    group), and how many of those it places right; the stances it gave, counted."""
    placed = correct = 0
    for group in stances:
        sided = {claim: stance for claim, stance in group.items() if stance in ("yes", "no")}
        for a, b in itertools.combinations(sorted(sided), 2):
            relation = truth.relation.get((a, b))
            if relation is not None:
                placed += 1
                correct += (sided[a] == sided[b]) == (relation > 0)
    counted = Counter(stance for group in stances for stance in group.values())
    return {
        "accuracy": share_with_interval(correct, placed, level),
        "coverage": share_with_interval(placed, len(truth.relation), level),
        "groups": len(stances),
        "stances": dict(sorted(counted.items())),
    }


def pair_flag_stances(labels, edges: Sequence[Edge]) -> list[dict[int, str]]:
    """The stance groups of before: flagged pairs read as "says the opposite" from the claim in
    most of them; an odd cycle leaves every claim it connects ``mixed``; unconnected parts apart."""
    members: dict[int, list[int]] = defaultdict(list)
    for claim, label in enumerate(labels):
        members[int(label)].append(claim)
    opposite: dict[int, list[int]] = defaultdict(list)
    for edge in edges:
        if edge.flagged:
            opposite[edge.first].append(edge.second)
            opposite[edge.second].append(edge.first)
    groups = []
    for label in dict.fromkeys(int(labels[edge.first]) for edge in edges):
        degree = {claim: len(opposite[claim]) for claim in members[label]}
        unplaced = sorted((c for c in members[label] if degree[c]), key=lambda c: (-degree[c], c))
        first = True
        while unplaced:
            others = [c for c in members[label] if not degree[c]] if first else []
            stances = _two_sides(unplaced[0], opposite, others)
            groups.append(stances)
            unplaced = [claim for claim in unplaced if claim not in stances]
            first = False
    return groups


def _two_sides(reference: int, opposite: dict[int, list[int]], others: list[int]) -> dict[int, str]:
    side = {reference: 0}
    two_sided = True
    queue = deque([reference])
    while queue:
        claim = queue.popleft()
        for other in opposite[claim]:
            if other not in side:
                side[other] = 1 - side[claim]
                queue.append(other)
            elif side[other] == side[claim]:
                two_sided = False
    stances = {c: ("yes" if where == 0 else "no") if two_sided else "mixed" for c, where in side.items()}
    return stances | {claim: "neither" for claim in others}


def method_comparison(result: FindResult, truth: Truth, params: FindParams, level: float) -> dict:
    """Stance accuracy per question by each method, on the same clusters, scores and flags."""
    methods = method_stances(result, params)
    return {name: stance_accuracy(groups, truth, level) for name, groups in methods.items()}


def method_stances(result: FindResult, params: FindParams) -> dict[str, list[dict[str, str]]]:
    """Each method's stance groups (claim id -> yes, no, neither or mixed), on the same clusters,
    scores and flags."""
    index = {claim.claim_id: number for number, claim in enumerate(result.claims)}
    ids = [claim.claim_id for claim in result.claims]
    edges = [
        Edge(index[p.a.claim_id], index[p.b.claim_id], p.score, p.flagged)
        for p in result.pairs
        if p.comparable
    ]
    labels = clusters(len(ids), edges, [claim.question for claim in result.claims])
    threshold = result.report["flag"]["threshold"]
    if threshold is None:
        return {}  # nothing flagged: no stance group by any method

    def split(chosen_edges: Sequence[Edge], centre: float, exact_up_to: int) -> list[dict[str, str]]:
        _, groups = stance_groups(labels, chosen_edges, centre, exact_up_to, params.stance_min_confidence)
        return [{ids[c]: s for c, s in group.stances.items()} for group in groups]

    def hard(edge: Edge) -> Edge:  # weight +1 flagged, -1 not, whatever the score
        return Edge(
            edge.first, edge.second, _sigmoid(_logit(threshold) + (1 if edge.flagged else -1)), edge.flagged
        )

    return {
        "pair flags (before)": [{ids[c]: s for c, s in g.items()} for g in pair_flag_stances(labels, edges)],
        "split, log-odds against the flag threshold (chosen)": split(
            edges, threshold, params.stance_exact_up_to
        ),
        "split, local search only": split(edges, threshold, 1),
        "split, log-odds against 0.5": split(edges, 0.5, params.stance_exact_up_to),
        "split, weight +1 flagged / -1 not": split(
            [hard(e) for e in edges], threshold, params.stance_exact_up_to
        ),
    }


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


class SharedScores:
    """The classifier's scores, each sentence pair scored once across the settings, and its rate."""

    def __init__(self, score):
        self.score, self.known, self.seconds, self.scored = score, {}, 0.0, 0

    def __call__(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        new = [pair for pair in dict.fromkeys(pairs) if pair not in self.known]
        if new:
            started = time.perf_counter()
            self.known.update(zip(new, self.score(new), strict=True))
            self.seconds += time.perf_counter() - started
            self.scored += len(new)
        return [self.known[pair] for pair in pairs]

    @property
    def rate(self) -> float:
        return self.scored / self.seconds if self.seconds else 0.0


def parse_setting(text: str) -> tuple[str, dict, bool]:
    name, _, changes = text.partition(":")
    values = dict(item.split("=", 1) for item in changes.split(",") if item)
    given = values.pop("question", "0") == "1"
    return name, {key: _number(value) for key, value in values.items()}, given


def _number(value: str):
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--healthver", required=True, type=Path, help="healthver_dev.csv")
    parser.add_argument(
        "--abstracts", required=True, type=Path, help="abstracts to fit the topic and claim models on"
    )
    parser.add_argument("--classifier", help="classifier folder (default: find.classifier)")
    parser.add_argument(
        "--verifier",
        help="verifier folder that re-reads each setting's best-ranked pairs (default: find.verifier; "
        "marked untrained: no re-read)",
    )
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--setting", action="append", help="name:key=value,... (repeatable; default: four)")
    parser.add_argument("--out", required=True, type=Path, help="figures (JSON)")
    parser.add_argument(
        "--run-out",
        type=Path,
        help="each setting's run, a find output folder under this one named after the setting, "
        "with the stance groups of every method compared (stance_methods.json)",
    )
    parser.add_argument(
        "--reviewed", type=Path, help="reviewed.jsonl of an earlier blind read of these claims"
    )
    parser.add_argument(
        "--candidates-only",
        type=float,
        metavar="PAIRS_PER_SECOND",
        help="score nothing (every pair 0): the candidate figures only, scoring priced at this rate",
    )
    args = parser.parse_args(argv)

    params = load_section(args.params, "find", FindParams)
    level = load_section(args.params, "gold", GoldSpec).confidence_level  # every blind read's level
    if args.classifier:
        params = params.model_copy(update={"classifier": args.classifier})
    if args.verifier:
        params = params.model_copy(update={"verifier": args.verifier})
    filters = load_section(args.params, "filter_models", FilterModels)
    topic = filters.topic_model
    claim_settings = finder_claim_settings(filters.claim_model, params, args.params)
    claims, truth = read_healthver(args.healthver)
    earlier = read_labels(args.reviewed)
    abstracts = list(read_jsonl(args.abstracts, Abstract))
    models = finder_models(params, topic, claim_settings, abstracts)
    encoder = caching_encoder(topic)
    scores = SharedScores(lambda pairs: [0.0] * len(pairs) if args.candidates_only else models.score(pairs))
    rate = args.candidates_only or None
    verifier_scores = SharedScores(models.verifier.score) if models.verifier.score else None
    verifier = Verifier(verifier_scores, models.verifier.off)
    if args.candidates_only:
        verifier_scores, verifier = None, Verifier(None, "--candidates-only: nothing is scored")
    settings = {}
    for text in args.setting or DEFAULT_SETTINGS:
        name, changes, given = parse_setting(text)
        chosen = FindParams.model_validate(params.model_dump() | changes)
        asked = [
            c.model_copy(update={"question": truth.question_of[c.claim_id] if given else None})
            for c in claims
        ]
        started = time.perf_counter()
        result = find_contradictions(
            asked, chosen, encoder, models.same_topic, scores, models.claim_probability, verifier
        )
        print(
            f"{name}: {time.perf_counter() - started:.1f} s, {result.report['scored']} pairs scored",
            flush=True,
        )
        settings[name] = {"changes": changes, "question_given": given, "result": result, "params": chosen}
    figures = {
        "classifier": params.classifier,
        "verifier": params.verifier,
        "abstracts": str(args.abstracts),
        "claims": len(claims),
        "questions": len(set(truth.question_of.values())),
        "pairs_with_known_sides": dict(
            Counter("same" if r > 0 else "opposite" for r in truth.relation.values())
        ),
        "pairs_scored_per_second": round(rate or scores.rate, 2),
        "verifier_pairs_per_second": round(verifier_scores.rate, 2) if verifier_scores else None,
        "candidates_only": bool(args.candidates_only),
        "models": models.quality,
        "settings": {
            name: {
                "changes": run["changes"],
                "question_given": run["question_given"],
                "candidates": candidate_figures(
                    run["result"],
                    truth,
                    rate or scores.rate,
                    level,
                    verifier_scores.rate if verifier_scores else None,
                ),
            }
            | (
                {}
                if args.candidates_only
                else {
                    "precision_at": ranking_figures(run["result"], truth, level),
                    "precision_at_among_pairs_read_before": read_before(run["result"], earlier, level),
                    "stance": method_comparison(run["result"], truth, run["params"], level),
                }
            )
            for name, run in settings.items()
        },
    }
    write_json(args.out, figures)
    if args.run_out and not args.candidates_only:
        for name, run in settings.items():
            folder = args.run_out / setting_folder(name)
            run["result"].report |= models.quality
            write_outputs(run["result"], run["params"], folder, folder / "find.html")
            write_json(folder / "report.json", run["result"].report)
            write_json(folder / "stance_methods.json", method_stances(run["result"], run["params"]))
    print(args.out)


def setting_folder(name: str) -> str:
    """A setting's name as a folder name: "question given" -> question-given."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


if __name__ == "__main__":
    main()
