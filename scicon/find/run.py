"""One find run: claims in, ranked claim pairs, stance groups and the run's figures out.

The run is the steps of docs/find.md, each a function here that can be called alone:
:func:`candidates` (nearest claims of other studies), :func:`on_same_topic` (the calibrated
same-topic model), :func:`comparable` (the registered comparability checks),
:func:`scored` (the classifier, both orders), :func:`ranked` and :func:`grouped` (question
clusters and stances); :func:`find_contradictions` runs them in that order.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from scicon.find.checks import Comparability, Comparison
from scicon.find.claims import normalised_text
from scicon.find.neighbours import Neighbours, candidate_pairs
from scicon.find.params import FindParams
from scicon.find.stance import STANCES, Edge, clusters, stance_groups
from scicon.records.find import Claim, FoundPair, Stance, StanceGroupRecord

log = logging.getLogger(__name__)

Encoder = Callable[[Sequence[str]], np.ndarray]
Calibrate = Callable[[Sequence[float]], list[float]]  # cosines mapped to [0, 1] -> P(same topic)
Score = Callable[[Sequence[tuple[str, str]]], list[float]]  # calibrated P(contradiction)


@dataclass
class Candidate:
    first: int  # claim indices, first < second
    second: int
    cosine: float
    same_topic: float = 0.0
    comparison: Comparison = Comparison((), ())  # set by the comparable step
    score_ab: float | None = None  # calibrated P(contradiction), A then B; None: not scored
    score_ba: float | None = None

    @property
    def score(self) -> float | None:
        return None if self.score_ab is None else (self.score_ab + self.score_ba) / 2.0

    def flagged(self, threshold: float) -> bool:
        return self.score is not None and self.score >= threshold


@dataclass
class FindResult:
    claims: list[Claim]
    pairs: list[FoundPair]
    groups: list[StanceGroupRecord]
    report: dict = field(default_factory=dict)


@dataclass
class Questions:
    """The question clusters of a run: each claim's cluster, the clusters' names, their stance groups."""

    labels: np.ndarray
    names: dict[int, str]
    groups: list[StanceGroupRecord]

    def of(self, candidate: Candidate) -> str:
        if not candidate.comparison.comparable:
            return ""
        return self.names.get(int(self.labels[candidate.first]), "")


def find_contradictions(
    claims: Sequence[Claim], params: FindParams, encode: Encoder, same_topic: Calibrate, score: Score
) -> FindResult:
    """Candidate pairs of different studies' claims, kept when on the same topic, checked for
    comparability, the comparable ones scored in both orders, ranked (comparable first, by
    score; then the rest, by P(same topic)) and grouped by question."""
    claims = list(claims)
    seconds: dict[str, float] = {}
    vectors = _timed(seconds, "encode", encode, [claim.text for claim in claims])
    neighbours = _timed(seconds, "candidates", candidates, claims, vectors, params)
    topical, off_topic = on_same_topic(claims, neighbours, same_topic, params.min_same_topic)
    kept, not_comparable = comparable(claims, topical, Comparability(params), params.not_comparable)
    dropped = off_topic + not_comparable
    _log_kept(claims, neighbours, kept, dropped)
    scored_count = _timed(seconds, "score", scored, claims, kept, score)
    order = ranked(claims, kept)
    questions = grouped(claims, order, params.threshold)
    pairs = found_pairs(claims, order, questions, params.threshold)
    report = run_report(claims, neighbours, topical, pairs, questions, dropped) | {
        "timings": {
            "seconds": {name: round(value, 3) for name, value in seconds.items()},
            "pairs_scored_per_second": _rate(scored_count, seconds["score"]),
        }
    }
    return FindResult(claims, pairs, questions.groups, report)


def candidates(claims: Sequence[Claim], vectors: np.ndarray, params: FindParams) -> Neighbours:
    """Step 2: each claim's ``find.neighbours`` nearest claims of other studies."""
    return candidate_pairs(
        vectors,
        [claim.group for claim in claims],
        params.neighbours,
        params.hnsw_links,
        params.hnsw_construction,
        params.hnsw_search,
    )


def on_same_topic(
    claims: Sequence[Claim], neighbours: Neighbours, same_topic: Calibrate, min_same_topic: float
) -> tuple[list[Candidate], Counter]:
    """Step 3: the candidates the calibrated same-topic model gives at least ``min_same_topic``,
    less the same text in two studies; what is dropped, counted by why."""
    topic = same_topic([(1.0 + cosine) / 2.0 for _, _, cosine in neighbours.pairs])
    dropped: Counter = Counter()
    kept = []
    for (i, j, cosine), probability in zip(neighbours.pairs, topic, strict=True):
        if probability < min_same_topic:
            dropped["below_min_same_topic"] += 1
        elif normalised_text(claims[i].text) == normalised_text(claims[j].text):
            dropped["identical_text"] += 1
        else:
            kept.append(Candidate(i, j, cosine, probability))
    return kept, dropped


def comparable(
    claims: Sequence[Claim], topical: Sequence[Candidate], checks: Comparability, not_comparable: str
) -> tuple[list[Candidate], Counter]:
    """Step 4: each candidate compared by every registered check; one that is not comparable is
    kept and marked (``mark``) or dropped and counted (``drop``)."""
    kept, dropped = [], Counter()
    for candidate in topical:
        candidate.comparison = checks.compare(claims[candidate.first].text, claims[candidate.second].text)
        if candidate.comparison.comparable or not_comparable == "mark":
            kept.append(candidate)
        else:
            dropped["not_comparable"] += 1
    return kept, dropped


def scored(claims: Sequence[Claim], kept: Sequence[Candidate], score: Score) -> int:
    """Step 5: the comparable candidates' P(contradiction) in both orders; returns the pairs scored."""
    chosen = [candidate for candidate in kept if candidate.comparison.comparable]
    texts = [(claims[c.first].text, claims[c.second].text) for c in chosen]
    both = score(texts + [(second, first) for first, second in texts])
    for candidate, ab, ba in zip(chosen, both[: len(texts)], both[len(texts) :], strict=True):
        candidate.score_ab, candidate.score_ba = ab, ba
    return len(both)


def ranked(claims: Sequence[Claim], kept: Sequence[Candidate]) -> list[Candidate]:
    """Step 6: comparable pairs by score, then the rest by P(same topic): most worth reading first."""
    return sorted(
        kept,
        key=lambda c: (
            c.score is None,
            -(c.score if c.score is not None else c.same_topic),
            claims[c.first].claim_id,
            claims[c.second].claim_id,
        ),
    )


def grouped(claims: Sequence[Claim], order: Sequence[Candidate], threshold: float) -> Questions:
    """Step 7: question clusters of the comparable pairs, and the stances of those with a flagged pair."""
    edges = [Edge(c.first, c.second, c.flagged(threshold)) for c in order if c.comparison.comparable]
    labels = clusters(len(claims), edges)
    names, parts = stance_groups(labels, edges)
    groups = [
        StanceGroupRecord(
            question=part.question,
            reference=claims[part.reference],
            members=tuple(
                Stance(claim=claims[index], stance=stance)
                for index, stance in sorted(
                    part.stances.items(), key=lambda item: (STANCES.index(item[1]), claims[item[0]].claim_id)
                )
            ),
        )
        for part in parts
    ]
    return Questions(labels, names, groups)


def found_pairs(
    claims: Sequence[Claim], order: Sequence[Candidate], questions: Questions, threshold: float
) -> list[FoundPair]:
    """The ranked candidates as the records of ``contradictions.jsonl``."""
    return [
        FoundPair(
            rank=rank,
            pair_id=f"{claims[c.first].claim_id}|{claims[c.second].claim_id}",
            a=claims[c.first],
            b=claims[c.second],
            score=_rounded(c.score),
            score_ab=_rounded(c.score_ab),
            score_ba=_rounded(c.score_ba),
            flagged=c.flagged(threshold),
            same_topic=round(c.same_topic, 6),
            cosine=round(c.cosine, 6),
            comparable=c.comparison.comparable,
            not_comparable=tuple(str(reason) for reason in c.comparison.not_comparable),
            shared_terms=c.comparison.shared_terms,
            question=questions.of(c),
        )
        for rank, c in enumerate(order, start=1)
    ]


def run_report(
    claims: Sequence[Claim],
    neighbours: Neighbours,
    compared: Sequence[Candidate],
    pairs: Sequence[FoundPair],
    questions: Questions,
    dropped: Counter,
) -> dict:
    """The run's figures (reports/find.json, less the timings); ``compared``: every candidate the
    checks saw, so reasons are counted whether their pairs were marked or dropped."""
    flagged = [pair for pair in pairs if pair.flagged]
    reasons = Counter(reason.kind for c in compared for reason in c.comparison.not_comparable)
    studies = len({claim.group for claim in claims})
    return {
        "claims": len(claims),
        "studies": studies,
        "candidate_pairs": len(neighbours.pairs),
        "pairs": len(pairs),
        "comparable": sum(pair.comparable for pair in pairs),
        "scored": sum(c.score is not None for c in compared),
        "flagged": len(flagged),
        "dropped": dict(sorted(dropped.items())),
        "not_comparable_reasons": dict(sorted(reasons.items())),
        "questions": len(questions.names),
        "stance_groups": len(questions.groups),
        "flagged_studies": len({claim.group for pair in flagged for claim in (pair.a, pair.b)}),
        "empty_reason": _empty_reason(len(claims), studies, neighbours.pairs, pairs, dropped),
        "neighbour_slots_read": neighbours.looked_at,
    }


def _timed(seconds: dict[str, float], step: str, function: Callable, *args):
    started = time.perf_counter()
    result = function(*args)
    seconds[step] = time.perf_counter() - started
    return result


def _log_kept(claims: Sequence[Claim], neighbours: Neighbours, kept: Sequence[Candidate], dropped: Counter):
    log.info(
        "find: %d claims of %d studies, %d candidate pairs, %d kept (%s)",
        len(claims),
        len({claim.group for claim in claims}),
        len(neighbours.pairs),
        len(kept),
        ", ".join(f"{reason} {count}" for reason, count in sorted(dropped.items())) or "none dropped",
    )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _rate(count: int, seconds: float) -> float | None:
    return round(count / seconds, 2) if count and seconds > 0 else None


def _empty_reason(claims: int, studies: int, found: list, pairs: Sequence, dropped: Counter) -> str | None:
    if pairs:
        return None
    if studies < 2:
        return f"all {claims} claims come from one study: there is nothing to compare them with"
    if not found:
        return "no candidate pair"
    return "every candidate pair was dropped: " + ", ".join(f"{k} {v}" for k, v in sorted(dropped.items()))
