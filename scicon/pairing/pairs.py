"""Build conclusion–conclusion and result–conclusion pairs, both sentences from one abstract.

Restricting a pair to one abstract is what keeps its two sentences on the same
population, intervention and outcome (EvoNLI paper, section 3.1). ``sentence2`` is
always a conclusion: it is the sentence the search mutates.
"""

from __future__ import annotations

import itertools
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scicon.errors import NoWorkError, ParamsError
from scicon.pairing.entailment import BELOW_MIN_ENTAILMENT, judge_pairs
from scicon.pairing.params import PairsParams
from scicon.pairing.selectors import EntailmentScorer, ResultSelector, SelectionRequest
from scicon.records.base import Skip
from scicon.records.corpus import Abstract, Role, Sentence
from scicon.records.pairs import Pair, PairKind

if TYPE_CHECKING:
    from scicon.pairing.llm import ConclusionWriter

log = logging.getLogger(__name__)

SKIP_REASONS = (
    "no_conclusions",
    "sentence_too_short",
    "no_results_sentence",
    "result_not_matched",
    "conclusion_pair_cap",
    "result_pair_cap",
    "duplicate_pair",
    BELOW_MIN_ENTAILMENT,
)


@dataclass
class PairsResult:
    pairs: list[Pair]
    skipped: list[Skip]
    metrics: dict


def pair_id(pmid: str, kind: PairKind, index1: int, index2: int) -> str:
    return f"{pmid}-{kind.short}-{index1}-{index2}"


def pair_indices(identifier: str) -> tuple[int, int]:
    """The abstract's sentence indices of sentence1 and sentence2 that a :func:`pair_id` names."""
    index1, index2 = identifier.rsplit("-", 2)[1:]
    return int(index1), int(index2)


def build_pairs(
    abstracts: Sequence[Abstract],
    params: PairsParams,
    selector: ResultSelector,
    conclusion_writer: ConclusionWriter | None = None,
    entailment_scorer: EntailmentScorer | None = None,
) -> PairsResult:
    """The pairs of ``abstracts``; with ``entailment_scorer`` every pair carries its P(entailment)
    and, with ``params.min_entailment`` set, those below it are skipped."""
    if params.min_entailment is not None and entailment_scorer is None:
        raise ParamsError("pairs.min_entailment is set: the pairs need the entailment judge to be scored")
    skipped: list[Skip] = []
    generated: dict[str, int] = {}
    if conclusion_writer is not None:
        abstracts, generated = _with_generated_conclusions(abstracts, conclusion_writer)
    usable: dict[str, list[int]] = {}
    for abstract in abstracts:
        usable[abstract.pmid] = _usable_conclusions(abstract, params.min_words, skipped)

    candidates: list[Pair] = []
    if PairKind.CONCLUSION_CONCLUSION in params.kinds:
        for abstract in abstracts:
            candidates += _conclusion_pairs(abstract, usable[abstract.pmid], params, skipped)
    if PairKind.RESULT_CONCLUSION in params.kinds:
        candidates += _result_pairs(abstracts, usable, params, selector, skipped)
    candidates = [
        pair.model_copy(update={"sentence2_generated": True})
        if generated.get(pair.pmid) == pair.index2
        else pair
        for pair in candidates
    ]

    pairs: list[Pair] = []
    seen: set[tuple[str, str]] = set()
    for pair in candidates:
        key = (pair.sentence1, pair.sentence2)
        if key in seen:
            skipped.append(Skip(reason="duplicate_pair", where=pair.pair_id))
            continue
        seen.add(key)
        pairs.append(pair)
    judged = None
    if entailment_scorer is not None:
        judged = judge_pairs(pairs, entailment_scorer, params.min_entailment)
        pairs = judged.pairs
        skipped += judged.skipped
    _check_every_kind_made(pairs, skipped, params, selector, len(abstracts))
    metrics = _metrics(abstracts, pairs, skipped, selector)
    metrics["entailment"] = judged.metrics if judged is not None else None
    metrics["conclusions_generated"] = len(generated)
    return PairsResult(pairs, skipped, metrics)


def _with_generated_conclusions(
    abstracts: Sequence[Abstract], writer: ConclusionWriter
) -> tuple[list[Abstract], dict[str, int]]:
    """Append a backbone-written conclusion to every abstract that has none."""
    missing = [a for a in abstracts if not a.indices(Role.CONCLUSIONS)]
    written = dict(zip((a.pmid for a in missing), writer.write(missing), strict=True)) if missing else {}
    completed, generated = [], {}
    for abstract in abstracts:
        text = written.get(abstract.pmid)
        if text is None:
            completed.append(abstract)
            continue
        generated[abstract.pmid] = len(abstract.sentences)
        conclusion = Sentence(role=Role.CONCLUSIONS, text=text)
        completed.append(abstract.model_copy(update={"sentences": (*abstract.sentences, conclusion)}))
    return completed, generated


def _usable_conclusions(abstract: Abstract, min_words: int, skipped: list[Skip]) -> list[int]:
    indices = abstract.indices(Role.CONCLUSIONS)
    if not indices:
        skipped.append(Skip(reason="no_conclusions", where=abstract.pmid))
    usable = []
    for index in indices:
        text = abstract.sentences[index].text
        if len(text.split()) < min_words:
            skipped.append(
                Skip(reason="sentence_too_short", where=f"{abstract.pmid} sentence {index}", detail=text)
            )
        else:
            usable.append(index)
    return usable


def _conclusion_pairs(
    abstract: Abstract, conclusions: list[int], params: PairsParams, skipped: list[Skip]
) -> list[Pair]:
    # Adjacent conclusions first: they most often restate the same finding.
    combos = sorted(itertools.combinations(conclusions, 2), key=lambda ij: (ij[1] - ij[0], ij[0]))
    cap = params.max_conclusion_pairs_per_abstract
    kind = PairKind.CONCLUSION_CONCLUSION
    pairs = []
    for count, (first, second) in enumerate(combos):
        identifier = pair_id(abstract.pmid, kind, first, second)
        if cap is not None and count >= cap:
            skipped.append(Skip(reason="conclusion_pair_cap", where=identifier))
            continue
        pairs.append(_pair(abstract, kind, first, second))
    return pairs


def _result_pairs(
    abstracts: Sequence[Abstract],
    usable: dict[str, list[int]],
    params: PairsParams,
    selector: ResultSelector,
    skipped: list[Skip],
) -> list[Pair]:
    cap = params.max_result_pairs_per_abstract
    requests: list[SelectionRequest] = []
    for abstract in abstracts:
        for count, conclusion in enumerate(usable[abstract.pmid]):
            if cap is not None and count >= cap:
                skipped.append(Skip(reason="result_pair_cap", where=f"{abstract.pmid} sentence {conclusion}"))
                continue
            requests.append(SelectionRequest(abstract, conclusion))
    selector.fit(abstracts)
    kind = PairKind.RESULT_CONCLUSION
    pairs = []
    for request, selection in zip(requests, selector.select(requests), strict=True):
        abstract, conclusion = request.abstract, request.conclusion_index
        if selection is None:
            # the abstract has RESULTS sentences and the selector chose none (an llm answer
            # matching none of them, with no fallback), or it has none to choose from
            has_results = bool(abstract.indices(Role.RESULTS))
            reason = "result_not_matched" if has_results else "no_results_sentence"
            skipped.append(Skip(reason=reason, where=f"{abstract.pmid} sentence {conclusion}"))
            continue
        method = selection.method or selector.name
        pairs.append(_pair(abstract, kind, selection.index, conclusion, method, selection.score))
    return pairs


def _pair(
    abstract: Abstract,
    kind: PairKind,
    first: int,
    second: int,
    selector: str | None = None,
    score: float | None = None,
) -> Pair:
    one, two = abstract.sentences[first], abstract.sentences[second]
    return Pair(
        pair_id=pair_id(abstract.pmid, kind, first, second),
        pmid=abstract.pmid,
        kind=kind,
        sentence1=one.text,
        sentence2=two.text,
        role1=one.role,
        role2=two.role,
        index1=first,
        index2=second,
        selector=selector,
        selector_score=None if score is None else round(score, 6),
    )


def _check_every_kind_made(
    pairs: list[Pair], skipped: list[Skip], params: PairsParams, selector: ResultSelector, abstracts: int
) -> None:
    """No pair at all, or no pair of a kind because the result selector matched nothing, is an
    error naming what to change; a kind the corpus has no candidate of is logged."""
    made = Counter(pair.kind for pair in pairs)
    reasons = Counter(item.reason for item in skipped)
    causes = []
    for kind in params.kinds:
        if made[kind]:
            continue
        unmatched = reasons["result_not_matched"]
        if kind is PairKind.RESULT_CONCLUSION and unmatched:
            causes.append(f"no {kind} pair: {_unmatched_results(unmatched, params, selector)}")
        else:
            log.warning("pairs: no %s pair from %d abstracts (skipped: %s)", kind, abstracts, dict(reasons))
    if not pairs and not causes:
        why = ", ".join(f"{reason} {count}" for reason, count in sorted(reasons.items())) or "nothing skipped"
        if reasons[BELOW_MIN_ENTAILMENT]:
            remedy = f"pairs.min_entailment {params.min_entailment} dropped them: lower it or set it to null"
        else:
            remedy = (
                "the corpus needs abstracts with CONCLUSIONS sentences of at least pairs.min_words "
                f"({params.min_words}) words"
            )
        causes.append(f"no pair from {abstracts} abstracts ({why}): {remedy}")
    if causes:
        raise NoWorkError("pairs: " + "; ".join(causes))


def _unmatched_results(unmatched: int, params: PairsParams, selector: ResultSelector) -> str:
    if selector.name == "llm":
        remedy = f"pairs.llm_fallback is {params.llm_fallback}: set it to tfidf or overlap, choose"
    else:
        remedy = "choose"
    return (
        f"the {selector.name} result selector matched no RESULTS sentence to any of {unmatched} "
        f"conclusions; {remedy} another pairs.result_selector, or leave result_conclusion out of pairs.kinds"
    )


def _metrics(abstracts, pairs: list[Pair], skipped: list[Skip], selector: ResultSelector) -> dict:
    kinds = Counter(pair.kind for pair in pairs)
    reasons = Counter(item.reason for item in skipped)
    scores = [p.selector_score for p in pairs if p.selector_score is not None]
    return {
        "abstracts": len(abstracts),
        "abstracts_with_pairs": len({pair.pmid for pair in pairs}),
        "pairs": len(pairs),
        "pairs_per_kind": {kind.value: kinds.get(kind, 0) for kind in PairKind},
        "result_selector": selector.name,
        "mean_selector_score": round(sum(scores) / len(scores), 4) if scores else None,
        "skipped": {reason: reasons.get(reason, 0) for reason in SKIP_REASONS},
    }
