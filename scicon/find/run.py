"""One find run: claims in, ranked claim pairs, stance groups and the run's figures out.

The run is the steps of docs/find.md, each a function here that can be called alone:
:func:`claims_that_claim` (the claim model), :func:`candidates` (nearest claims of other
studies, and claims sharing distinctive terms), :func:`on_same_topic` (the calibrated
same-topic model), :func:`comparable` (the registered comparability checks), :func:`scored`
(the classifier, both orders), :func:`flag_threshold` (the ``find.flag_rate`` best),
:func:`ranked` and :func:`grouped` (question clusters and each claim's stance), :func:`reread`
(the verifier on the best-ranked scored pairs); :func:`find_contradictions` runs them in that order.
"""

from __future__ import annotations

import itertools
import logging
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from scicon.find.checks import Comparability, Comparison
from scicon.find.neighbours import (
    NEIGHBOURS,
    SHARED_TERMS,
    blocked_candidate_pairs,
    shared_term_pairs,
)
from scicon.find.params import FindParams
from scicon.find.stance import STANCES, Edge, StanceGroup, clusters, stance_groups
from scicon.find.terms import content_terms
from scicon.params import meets_threshold
from scicon.records.find import Claim, FoundPair, Stance, StanceGroupRecord, VerifierRead
from scicon.textdiff import normalised_sentence

log = logging.getLogger(__name__)

Encoder = Callable[[Sequence[str]], np.ndarray]
Calibrate = Callable[[Sequence[float]], list[float]]  # cosines mapped to [0, 1] -> P(same topic)
Score = Callable[[Sequence[tuple[str, str]]], list[float]]  # calibrated P(contradiction)
ClaimProbability = Callable[[Sequence[str]], list[float]]  # calibrated P(claim) per sentence
NON_CLAIMS_LISTED = 20  # the report lists this many of the sentences left out, least claim-like first


@dataclass
class Candidate:
    first: int  # claim indices, first < second
    second: int
    cosine: float
    route: str = NEIGHBOURS
    same_topic: float = 0.0
    comparison: Comparison = Comparison((), ())  # set by the comparable step
    score_ab: float | None = None  # calibrated P(contradiction), A then B; None: not scored
    score_ba: float | None = None
    verifier_ab: float | None = None  # the verifier's, set by the re-read; None: not re-read
    verifier_ba: float | None = None
    ranked_by: float | None = None  # what the re-read ranks it by (find.verifier_rank)

    @property
    def score(self) -> float | None:
        return None if self.score_ab is None else (self.score_ab + self.score_ba) / 2.0

    @property
    def verifier_score(self) -> float | None:
        return None if self.verifier_ab is None else (self.verifier_ab + self.verifier_ba) / 2.0

    def flagged(self, threshold: float | None) -> bool:
        return self.score is not None and threshold is not None and meets_threshold(self.score, threshold)


@dataclass(frozen=True)
class Verifier:
    """The second classifier that re-reads the best-ranked scored pairs (``find.verifier``): its
    calibrated P(contradiction) of plain pairs, or None and why there is none (``off``)."""

    score: Score | None
    off: str | None = None


NO_VERIFIER = Verifier(None, "no verifier given")
NONE_TO_REREAD = "find.verifier_top is 0"


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
    claims: Sequence[Claim],
    params: FindParams,
    encode: Encoder,
    same_topic: Calibrate,
    score: Score,
    claim_probability: ClaimProbability,
    verifier: Verifier = NO_VERIFIER,
) -> FindResult:
    """Claims that are claims; candidate pairs of different studies' claims, kept when on the same
    topic, checked for comparability, the comparable ones scored in both orders, the best of
    them flagged, ranked (comparable first, by score; then the rest, by P(same topic)) and
    grouped by question, each claim with its stance; the best-ranked scored pairs re-read by
    ``verifier`` and ranked again, above the rest."""
    seconds: dict[str, float] = {}
    if not params.verifier_top:
        verifier = Verifier(None, NONE_TO_REREAD)
    claims, non_claims = _timed(seconds, "claim_filter", claims_that_claim, claims, claim_probability, params)
    vectors = _timed(seconds, "encode", encode, [claim.text for claim in claims])
    found, looked_at = _timed(seconds, "candidates", candidates, claims, vectors, params)
    topical, off_topic = on_same_topic(claims, found, same_topic, params.min_same_topic)
    kept, not_comparable = comparable(claims, topical, Comparability(params), params.not_comparable)
    dropped = off_topic + not_comparable
    _log_kept(claims, found, kept, dropped)
    scored_count = _timed(seconds, "score", scored, claims, kept, score)
    threshold = flag_threshold(kept, params.flag_rate)
    order = ranked(claims, kept)
    questions = _timed(seconds, "stance", grouped, claims, order, threshold, params)
    read_count = 0
    if verifier.score is not None:
        order, read_count = _timed(seconds, "reread", reread, claims, order, verifier.score, params)
    pairs = found_pairs(claims, order, questions, threshold)
    report = run_report(claims, found, topical, pairs, questions, dropped) | {
        "neighbour_slots_read": looked_at,
        "non_claims": _non_claims_report(non_claims, params.min_claim),
        "flag": {"rate": params.flag_rate, "threshold": _rounded(threshold)},
        "timings": {
            "seconds": {name: round(value, 3) for name, value in seconds.items()},
            "pairs_scored_per_second": _rate(scored_count, seconds["score"]),
        },
        "reread": reread_report(params, verifier, pairs, read_count, seconds, scored_count),
    }
    return FindResult(claims, pairs, questions.groups, report)


def claims_that_claim(
    claims: Sequence[Claim], claim_probability: ClaimProbability, params: FindParams
) -> tuple[list[Claim], list[tuple[Claim, float]]]:
    """Step 1: the claims the claim model gives at least ``find.min_claim``; the rest (a
    registration, a funding line, "further studies are needed") with their P(claim)."""
    claims = list(claims)
    probabilities = claim_probability([claim.text for claim in claims]) if claims else []
    kept, left_out = [], []
    for claim, probability in zip(claims, probabilities, strict=True):
        if meets_threshold(probability, params.min_claim):
            kept.append(claim)
        else:
            left_out.append((claim, probability))
    return kept, left_out


def candidates(
    claims: Sequence[Claim], vectors: np.ndarray, params: FindParams
) -> tuple[list[Candidate], int]:
    """Step 2: each claim's ``find.neighbours`` nearest claims of other studies (within its
    question where a claims file gives one), and with ``find.shared_term_route`` the claims
    of other studies that share that many distinctive content terms with it; and the neighbour
    slots read (a claim's own study may fill some)."""
    groups = [claim.group for claim in claims]
    blocks = [claim.question for claim in claims]
    settings = (params.neighbours, params.hnsw_links, params.hnsw_construction, params.hnsw_search)
    neighbours = blocked_candidate_pairs(vectors, groups, blocks, *settings)
    found = {(i, j): Candidate(i, j, cosine) for i, j, cosine in neighbours.pairs}
    if params.shared_term_route:
        terms = [content_terms(claim.text) for claim in claims]
        for i, j in shared_term_pairs(
            terms, groups, blocks, params.shared_term_route, params.distinctive_term_claims
        ):
            if (i, j) not in found:
                found[i, j] = Candidate(i, j, float(vectors[i] @ vectors[j]), SHARED_TERMS)
    return [found[key] for key in sorted(found)], neighbours.looked_at


def on_same_topic(
    claims: Sequence[Claim], found: Sequence[Candidate], same_topic: Calibrate, min_same_topic: float
) -> tuple[list[Candidate], Counter]:
    """Step 3: the candidates the calibrated same-topic model gives at least ``min_same_topic``,
    less the same text in two studies; what is dropped, counted by why."""
    topic = same_topic([(1.0 + candidate.cosine) / 2.0 for candidate in found])
    dropped: Counter = Counter()
    kept = []
    for candidate, probability in zip(found, topic, strict=True):
        candidate.same_topic = probability
        if not meets_threshold(probability, min_same_topic):
            dropped["below_min_same_topic"] += 1
        elif normalised_sentence(claims[candidate.first].text) == normalised_sentence(
            claims[candidate.second].text
        ):
            dropped["identical_text"] += 1
        else:
            kept.append(candidate)
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
    for candidate, ab, ba in zip(chosen, *_in_both_orders(claims, chosen, score), strict=True):
        candidate.score_ab, candidate.score_ba = ab, ba
    return 2 * len(chosen)


def _in_both_orders(
    claims: Sequence[Claim], chosen: Sequence[Candidate], score: Score
) -> tuple[list[float], list[float]]:
    """``score`` of each chosen pair A then B, and B then A, in one call (one batched pass)."""
    texts = [(claims[c.first].text, claims[c.second].text) for c in chosen]
    both = score(texts + [(second, first) for first, second in texts])
    return both[: len(texts)], both[len(texts) :]


def flag_threshold(kept: Sequence[Candidate], rate: float) -> float | None:
    """Step 5b: the score of the lowest of the ``rate`` best-scored pairs (rounded down: a corpus of
    fewer than 1 / rate scored pairs flags none); a pair at or above it is flagged (ties too).
    A share of the corpus, so the flag means the same whichever classifier scores."""
    scores = sorted((c.score for c in kept if c.score is not None), reverse=True)
    count = math.floor(rate * len(scores) + 1e-9)
    return scores[count - 1] if count else None


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


def reread(
    claims: Sequence[Claim], order: Sequence[Candidate], verifier_score: Score, params: FindParams
) -> tuple[list[Candidate], int]:
    """Step 6b: the verifier reads the ``find.verifier_top`` best-ranked scored pairs, plain, in both
    orders (as the classifier did), and they are ranked again by ``find.verifier_rank``, above the
    rest, which keep the classifier's order; returns the new order and the sentence pairs read.
    It runs after the stance step, and the flags and the stance groups stay the classifier's: the
    verifier reads too few pairs to place the flag's share of the corpus."""
    # ranked puts every scored pair first, so the best-ranked scored pairs are a prefix of order
    top = list(itertools.takewhile(lambda c: c.score is not None, order))[: params.verifier_top]
    if not top:
        return list(order), 0
    for candidate, ab, ba in zip(top, *_in_both_orders(claims, top, verifier_score), strict=True):
        candidate.verifier_ab, candidate.verifier_ba = ab, ba
        candidate.ranked_by = (
            candidate.verifier_score
            if params.verifier_rank == "verifier"
            else (candidate.score + candidate.verifier_score) / 2.0
        )
    # a stable sort: pairs the re-read ties keep the classifier's order
    return sorted(top, key=lambda c: -c.ranked_by) + list(order[len(top) :]), 2 * len(top)


def reread_report(
    params: FindParams,
    verifier: Verifier,
    pairs: Sequence[FoundPair],
    read_count: int,
    seconds: dict[str, float],
    scored_count: int,
) -> dict:
    """What the re-read cost, and what the verifier would cost on every scored pair at its
    measured rate, beside the classifier's measured seconds (sentence pairs: both orders)."""
    spent = seconds.get("reread", 0.0)
    rate = read_count / spent if read_count and spent > 0 else None
    return {
        "verifier": params.verifier,
        "off": verifier.off,
        "top": params.verifier_top,
        "rank": params.verifier_rank,
        "pairs": sum(pair.verifier is not None for pair in pairs),
        "sentence_pairs_read": read_count,
        "seconds": round(spent, 3),
        "sentence_pairs_per_second": None if rate is None else round(rate, 2),
        "every_scored_pair": {
            "sentence_pairs": scored_count,
            "classifier_seconds": round(seconds["score"], 3),
            "verifier_seconds_estimated": round(scored_count / rate, 3) if rate and scored_count else None,
        },
    }


def grouped(
    claims: Sequence[Claim], order: Sequence[Candidate], threshold: float | None, params: FindParams
) -> Questions:
    """Step 7: question clusters of the comparable pairs (or the claims file's questions), and for
    each cluster with a flagged pair the split of its claims that agrees best with its scores."""
    edges = [Edge(c.first, c.second, c.score, c.flagged(threshold)) for c in order if c.comparison.comparable]
    labels = clusters(len(claims), edges, [claim.question for claim in claims])
    names, parts = stance_groups(
        labels, edges, threshold, params.stance_exact_up_to, params.stance_min_confidence
    )
    return Questions(labels, names, [_group_record(claims, part, edges) for part in parts])


def _group_record(claims: Sequence[Claim], part: StanceGroup, edges: Sequence[Edge]) -> StanceGroupRecord:
    split = part.split
    members = sorted(
        split.members,
        key=lambda i: (STANCES.index(part.stances[i]), -round(split.confidence[i], 6), claims[i].claim_id),
    )
    inside = [e for e in edges if e.first in split.sides and e.second in split.sides and e.score is not None]
    across = [e for e in inside if e.flagged and split.sides[e.first] != split.sides[e.second]]
    overruled = [e for e in inside if e.flagged and split.sides[e.first] == split.sides[e.second]]

    def ids(chosen: list[Edge]) -> tuple[str, ...]:
        chosen = sorted(chosen, key=lambda e: (-e.score, e.first, e.second))
        return tuple(f"{claims[e.first].claim_id}|{claims[e.second].claim_id}" for e in chosen)

    return StanceGroupRecord(
        question=part.question,
        asked=claims[split.reference].question,
        reference=claims[split.reference],
        members=tuple(
            Stance(claim=claims[i], stance=part.stances[i], confidence=round(split.confidence[i], 4))
            for i in members
        ),
        counts={stance: sum(s == stance for s in part.stances.values()) for stance in STANCES},
        agreement=round(split.agreement, 4),
        disagreeing=ids(across),
        overruled=ids(overruled),
    )


def found_pairs(
    claims: Sequence[Claim], order: Sequence[Candidate], questions: Questions, threshold: float | None
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
            route=c.route,
            comparable=c.comparison.comparable,
            not_comparable=c.comparison.not_comparable,
            shared_terms=c.comparison.shared_terms,
            question=questions.of(c),
            verifier=_verifier_read(c),
        )
        for rank, c in enumerate(order, start=1)
    ]


def _verifier_read(candidate: Candidate) -> VerifierRead | None:
    if candidate.verifier_ab is None:
        return None
    return VerifierRead(
        score=_rounded(candidate.verifier_score),
        score_ab=_rounded(candidate.verifier_ab),
        score_ba=_rounded(candidate.verifier_ba),
        ranked_by=_rounded(candidate.ranked_by),
    )


def run_report(
    claims: Sequence[Claim],
    found: Sequence[Candidate],
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
        "candidate_pairs": len(found),
        "candidate_routes": dict(sorted(Counter(c.route for c in found).items())),
        "blocked_by_question": any(claim.question for claim in claims),
        "pairs": len(pairs),
        "comparable": sum(pair.comparable for pair in pairs),
        "scored": sum(c.score is not None for c in compared),
        "flagged": len(flagged),
        "dropped": dict(sorted(dropped.items())),
        "not_comparable_reasons": dict(sorted(reasons.items())),
        "questions": len(questions.names),
        "stance_groups": len(questions.groups),
        "stances": _stance_report(questions.groups),
        "flagged_studies": len({claim.group for pair in flagged for claim in (pair.a, pair.b)}),
        "empty_reason": _empty_reason(len(claims), studies, found, pairs, dropped),
    }


def _stance_report(groups: Sequence[StanceGroupRecord]) -> dict:
    totals = Counter()
    for group in groups:
        totals.update(group.counts)
    return {
        "claims": {stance: totals[stance] for stance in STANCES},
        "split_questions": sum(group.counts["yes"] > 0 and group.counts["no"] > 0 for group in groups),
        "overruled_pairs": sum(len(group.overruled) for group in groups),
        "mean_agreement": round(float(np.mean([g.agreement for g in groups])), 4) if groups else None,
    }


def _non_claims_report(non_claims: Sequence[tuple[Claim, float]], min_claim: float) -> dict:
    listed = sorted(non_claims, key=lambda item: (item[1], item[0].claim_id))[:NON_CLAIMS_LISTED]
    return {
        "min_claim": min_claim,
        "left_out": len(non_claims),
        "least_claim_like": [
            {"id": claim.claim_id, "text": claim.text, "p_claim": round(p, 4)} for claim, p in listed
        ],
    }


def _timed(seconds: dict[str, float], step: str, function: Callable, *args):
    started = time.perf_counter()
    result = function(*args)
    seconds[step] = time.perf_counter() - started
    return result


def _log_kept(
    claims: Sequence[Claim], found: Sequence[Candidate], kept: Sequence[Candidate], dropped: Counter
):
    log.info(
        "find: %d claims of %d studies, %d candidate pairs, %d kept (%s)",
        len(claims),
        len({claim.group for claim in claims}),
        len(found),
        len(kept),
        ", ".join(f"{reason} {count}" for reason, count in sorted(dropped.items())) or "none dropped",
    )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _rate(count: int, seconds: float) -> float | None:
    return round(count / seconds, 2) if count and seconds > 0 else None


def _empty_reason(
    claims: int, studies: int, found: Sequence, pairs: Sequence, dropped: Counter
) -> str | None:
    if pairs:
        return None
    if studies < 2:
        return f"all {claims} claims come from one study: there is nothing to compare them with"
    if not found:
        return "no candidate pair"
    return "every candidate pair was dropped: " + ", ".join(f"{k} {v}" for k, v in sorted(dropped.items()))
