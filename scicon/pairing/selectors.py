"""Choosing the RESULTS sentence that supports a conclusion.

The paper asks a foundation model (Result Extraction prompt, appendix E.3.2). The
selectors here are the deterministic alternatives: they score every RESULTS sentence
of the abstract against the conclusion and keep the best, earliest sentence on ties —
by word statistics (tfidf, overlap), or by the entailment judge's calibrated
P(result entails conclusion) (entailment; see :mod:`scicon.pairing.entailment`).
A selector works on a batch of requests so that a model-backed selector can send
them together.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

from scicon.errors import ParamsError
from scicon.lexical import jaccard
from scicon.records.corpus import Abstract, Role


@dataclass(frozen=True)
class Selection:
    index: int
    score: float
    method: str | None = None  # set when it differs from the selector's name (e.g. a fallback)


@dataclass(frozen=True)
class SelectionRequest:
    abstract: Abstract
    conclusion_index: int


class ResultSelector(Protocol):
    name: str

    def fit(self, abstracts: Sequence[Abstract]) -> None:
        """See the whole corpus once before selecting (e.g. for document frequencies)."""

    def select(self, requests: Sequence[SelectionRequest]) -> list[Selection | None]:
        """One selection per request; None where the abstract has no RESULTS sentence."""


def _best(scores: Sequence[float], indices: Sequence[int]) -> Selection | None:
    if not indices:
        return None
    # max() keeps the first maximum, so ties go to the earliest sentence.
    position = max(range(len(indices)), key=lambda k: scores[k])
    return Selection(index=indices[position], score=float(scores[position]))


class TfidfSelector:
    """Cosine similarity of TF-IDF vectors, document frequencies from the whole corpus."""

    name = "tfidf"

    def __init__(self) -> None:
        self._vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True)

    def fit(self, abstracts: Sequence[Abstract]) -> None:
        self._vectorizer.fit(s.text for a in abstracts for s in a.sentences)

    def select(self, requests: Sequence[SelectionRequest]) -> list[Selection | None]:
        selections = []
        for request in requests:
            results = request.abstract.indices(Role.RESULTS)
            if not results:
                selections.append(None)
                continue
            sentences = request.abstract.sentences
            matrix = self._vectorizer.transform(
                [sentences[request.conclusion_index].text] + [sentences[i].text for i in results]
            )
            scores = cosine_similarity(matrix[0], matrix[1:])[0]
            selections.append(_best(list(scores), results))
        return selections


class OverlapSelector:
    """Jaccard overlap of content words (:mod:`scicon.lexical`); needs no corpus statistics."""

    name = "overlap"

    def fit(self, abstracts: Sequence[Abstract]) -> None:
        return None

    def select(self, requests: Sequence[SelectionRequest]) -> list[Selection | None]:
        selections = []
        for request in requests:
            results = request.abstract.indices(Role.RESULTS)
            conclusion = request.abstract.sentences[request.conclusion_index].text
            scores = [jaccard(conclusion, request.abstract.sentences[index].text) for index in results]
            selections.append(_best(scores, results))
        return selections


class EntailmentScorer(Protocol):
    def entailment_probabilities(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """Calibrated P(first sentence entails second) per pair, in input order."""


class EntailmentSelector:
    """The RESULTS sentence the entailment judge finds most likely to entail the conclusion.

    Every request's (result, conclusion) pairs go to the judge in one call, so the model
    batches across abstracts.
    """

    name = "entailment"
    needs_entailment_scorer = True

    def __init__(self, scorer: EntailmentScorer) -> None:
        self.scorer = scorer

    def fit(self, abstracts: Sequence[Abstract]) -> None:
        return None

    def select(self, requests: Sequence[SelectionRequest]) -> list[Selection | None]:
        candidates = [request.abstract.indices(Role.RESULTS) for request in requests]
        texts = [
            (
                request.abstract.sentences[index].text,
                request.abstract.sentences[request.conclusion_index].text,
            )
            for request, results in zip(requests, candidates, strict=True)
            for index in results
        ]
        scores = self.scorer.entailment_probabilities(texts) if texts else []
        selections, start = [], 0
        for results in candidates:
            selections.append(_best(scores[start : start + len(results)], results))
            start += len(results)
        return selections


RESULT_SELECTORS: dict[str, Callable[..., ResultSelector]] = {
    TfidfSelector.name: TfidfSelector,
    OverlapSelector.name: OverlapSelector,
    EntailmentSelector.name: EntailmentSelector,
}


def make_cheap_selector(name: str, entailment_scorer: EntailmentScorer | None = None) -> ResultSelector:
    """The selector ``name``; one that reads the entailment judge is given ``entailment_scorer``."""
    try:
        factory = RESULT_SELECTORS[name]
    except KeyError:
        raise ParamsError(
            f"unknown result selector {name!r} (choose from {', '.join(RESULT_SELECTORS)})"
        ) from None
    if not getattr(factory, "needs_entailment_scorer", False):
        return factory()
    if entailment_scorer is None:
        raise ParamsError(
            f"pairs: the {name} result selector needs the entailment judge (pairs.entailment_model)"
        )
    return factory(entailment_scorer)
