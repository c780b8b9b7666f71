"""One find run: claims in, ranked claim pairs, stance groups and the run's figures out."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from scicon.find.claims import normalised_text
from scicon.find.neighbours import candidate_pairs
from scicon.find.params import FindParams
from scicon.find.stance import STANCES, Edge, clusters, stance_groups
from scicon.find.terms import Comparison, compare
from scicon.params import meets_threshold
from scicon.records.find import Claim, FoundPair, Stance, StanceGroupRecord

log = logging.getLogger(__name__)

Encoder = Callable[[Sequence[str]], np.ndarray]
Calibrate = Callable[[Sequence[float]], list[float]]  # cosines mapped to [0, 1] -> P(same topic)
Score = Callable[[Sequence[tuple[str, str]]], list[float]]  # calibrated P(contradiction)


@dataclass
class _Candidate:
    first: int  # claim indices, first < second
    second: int
    cosine: float
    same_topic: float
    comparison: Comparison
    score_ab: float | None = None  # calibrated P(contradiction), A then B; None: not scored
    score_ba: float | None = None

    @property
    def score(self) -> float | None:
        return None if self.score_ab is None else (self.score_ab + self.score_ba) / 2.0

    def flagged(self, threshold: float) -> bool:
        return self.score is not None and meets_threshold(self.score, threshold)


@dataclass
class FindResult:
    claims: list[Claim]
    pairs: list[FoundPair]
    groups: list[StanceGroupRecord]
    report: dict = field(default_factory=dict)


def find_contradictions(
    claims: Sequence[Claim], params: FindParams, encode: Encoder, same_topic: Calibrate, score: Score
) -> FindResult:
    """Candidate pairs of different studies' claims, kept when on the same topic, checked for
    comparability, the comparable ones scored in both orders, ranked (comparable first, by
    score; then the rest, by P(same topic)) and grouped by question."""
    claims = list(claims)
    timings: dict[str, float] = {}
    report: dict = {"claims": len(claims), "studies": len({claim.group for claim in claims})}
    started = time.perf_counter()
    vectors = encode([claim.text for claim in claims])
    timings["encode"] = time.perf_counter() - started

    started = time.perf_counter()
    neighbours = candidate_pairs(
        vectors,
        [claim.group for claim in claims],
        params.neighbours,
        params.hnsw_links,
        params.hnsw_construction,
        params.hnsw_search,
    )
    timings["candidates"] = time.perf_counter() - started
    report["candidate_pairs"] = len(neighbours.pairs)
    topic = same_topic([(1.0 + cosine) / 2.0 for _, _, cosine in neighbours.pairs])

    dropped: Counter = Counter()
    not_comparable: Counter = Counter()
    kept: list[_Candidate] = []
    for (i, j, cosine), probability in zip(neighbours.pairs, topic, strict=True):
        if not meets_threshold(probability, params.min_same_topic):
            dropped["below_min_same_topic"] += 1
            continue
        if normalised_text(claims[i].text) == normalised_text(claims[j].text):
            dropped["identical_text"] += 1
            continue
        comparison = compare(claims[i].text, claims[j].text, params.min_shared_terms)
        for reason in comparison.not_comparable:
            not_comparable[reason.split(":", 1)[0]] += 1
        if not comparison.comparable and params.not_comparable == "drop":
            dropped["not_comparable"] += 1
            continue
        kept.append(_Candidate(i, j, cosine, probability, comparison))
    log.info(
        "find: %d claims of %d studies, %d candidate pairs, %d kept (%s)",
        len(claims),
        report["studies"],
        len(neighbours.pairs),
        len(kept),
        ", ".join(f"{reason} {count}" for reason, count in sorted(dropped.items())) or "none dropped",
    )

    started = time.perf_counter()
    comparable = [candidate for candidate in kept if candidate.comparison.comparable]
    texts = [(claims[c.first].text, claims[c.second].text) for c in comparable]
    both = score(texts + [(second, first) for first, second in texts])
    timings["score"] = time.perf_counter() - started
    for candidate, ab, ba in zip(comparable, both[: len(texts)], both[len(texts) :], strict=True):
        candidate.score_ab, candidate.score_ba = ab, ba
    # comparable pairs by score, then the rest by topic: most worth reading first
    kept.sort(
        key=lambda c: (
            c.score is None,
            -(c.score if c.score is not None else c.same_topic),
            claims[c.first].claim_id,
            claims[c.second].claim_id,
        )
    )

    edges = [Edge(c.first, c.second, c.flagged(params.threshold)) for c in kept if c.comparison.comparable]
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
    pairs = [
        FoundPair(
            rank=rank,
            pair_id=f"{claims[c.first].claim_id}|{claims[c.second].claim_id}",
            a=claims[c.first],
            b=claims[c.second],
            score=_rounded(c.score),
            score_ab=_rounded(c.score_ab),
            score_ba=_rounded(c.score_ba),
            flagged=c.flagged(params.threshold),
            same_topic=round(c.same_topic, 6),
            cosine=round(c.cosine, 6),
            comparable=c.comparison.comparable,
            not_comparable=c.comparison.not_comparable,
            shared_terms=c.comparison.shared_terms,
            question=names.get(int(labels[c.first]), "") if c.comparison.comparable else "",
        )
        for rank, c in enumerate(kept, start=1)
    ]
    flagged_pairs = [pair for pair in pairs if pair.flagged]
    report |= {
        "pairs": len(pairs),
        "comparable": sum(pair.comparable for pair in pairs),
        "scored": len(comparable),
        "flagged": len(flagged_pairs),
        "dropped": dict(sorted(dropped.items())),
        "not_comparable_reasons": dict(sorted(not_comparable.items())),
        "questions": len(names),
        "stance_groups": len(groups),
        "flagged_studies": len({claim.group for pair in flagged_pairs for claim in (pair.a, pair.b)}),
        "empty_reason": _empty_reason(report, neighbours.pairs, pairs, dropped),
        "neighbour_slots_read": neighbours.looked_at,
        "timings": {
            "seconds": {name: round(seconds, 3) for name, seconds in timings.items()},
            "pairs_scored_per_second": _rate(len(both), timings["score"]),
        },
    }
    return FindResult(claims, pairs, groups, report)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _rate(count: int, seconds: float) -> float | None:
    return round(count / seconds, 2) if count and seconds > 0 else None


def _empty_reason(report: dict, candidates: list, pairs: list[FoundPair], dropped: Counter) -> str | None:
    if pairs:
        return None
    if report["studies"] < 2:
        return f"all {report['claims']} claims come from one study: there is nothing to compare them with"
    if not candidates:
        return "no candidate pair"
    return "every candidate pair was dropped: " + ", ".join(f"{k} {v}" for k, v in sorted(dropped.items()))
