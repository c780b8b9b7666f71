"""P(same topic): the MiniLM cosine of two sentences, calibrated on the corpus itself.

In the EvoNLI paper the similarity filter keeps a candidate when the backbone answers
"yes" to "do these two sentences discuss the same exact topic?" (prompt E.3.5) with
probability at least ``sim``. A cosine is not such a probability: mapped to [0, 1], 0.5
is a cosine of 0, which nearly any two English sentences reach. This module gives the
cosine the paper's meaning by calibrating it on labelled pairs that the corpus supplies
for free, following the paper's premise for topical alignment (section 3.1: sentences of
one abstract share its topic):

- same topic: a CONCLUSIONS sentence (what EvoNLI rewrites) and another RESULTS or
  CONCLUSIONS sentence of its abstract (what the filter compares the rewrite with);
- different topic: the same conclusion and a claim sentence of another abstract, part
  drawn at random and part among the lexically closest ones (TF-IDF), so that sharing
  vocabulary — "patients", "significantly", a common drug — is not mistaken for sharing
  a topic.

Each negative reuses its positive's conclusion, so both classes have the same sentences
on one side and differ only in the partner. Abstracts are split by a seeded hash of the
PMID into a fitting part and a held-out part (no abstract in both, negatives drawn within
a part); :mod:`scicon.calibration` fits the map on the first and reports ROC-AUC, Brier
score, log loss and ECE on the second. The classes are balanced, so ``sim = 0.5`` is the
point where the cosine is as likely to come from a same-abstract pair as from a pair of
different abstracts.

The fitted calibration is a few numbers kept in the SciCon cache, keyed by the claim
sentences it was fitted on, the encoder's weights and the settings below.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import Field

from scicon.calibration import calibration_report, fit_calibration
from scicon.errors import InputFormatError
from scicon.fitted.base import FittedModel, encode, fit_or_load, group_draw, is_held_out, model_key
from scicon.params import Operational, Section, meets_threshold
from scicon.records.corpus import Abstract, Role

log = logging.getLogger(__name__)

FORMAT = "scicon-topic-model/1"
CLAIM_ROLES = (Role.RESULTS, Role.CONCLUSIONS)
PairKind = Literal["conclusion_conclusion", "result_conclusion", "random_abstract", "lexical_neighbour"]
SAME_TOPIC_KINDS = ("conclusion_conclusion", "result_conclusion")


class TopicModelSettings(Section):
    """How the same-topic probability is fitted (params.yaml ``topic_model``)."""

    encoder: str = Field(description="sentence encoder, e.g. embedded:all-minilm-l6-v2")
    max_abstracts: int | None = Field(gt=0, description="seeded sample of abstracts to fit on (null: all)")
    pairs_per_abstract: int = Field(gt=0, description="same-topic pairs per abstract (as many negatives)")
    supporting_results: int | None = Field(
        gt=0, description="results closest to a conclusion that count as its topic (null: every result)"
    )
    lexical_negative_share: float = Field(ge=0.0, le=1.0, description="negatives among TF-IDF neighbours")
    lexical_neighbours: int = Field(gt=0, description="a lexical negative is one of this many closest")
    held_out_fraction: float = Field(gt=0.0, lt=1.0, description="abstracts kept for the quality report")
    method: Literal["sigmoid", "isotonic"]
    seed: int
    batch_size: int = Operational(gt=0)


@dataclass(frozen=True)
class TopicPair:
    """A labelled pair: ``candidate`` is a conclusion, ``reference`` what it is compared with."""

    reference: str
    candidate: str
    kind: PairKind
    pmid: str

    @property
    def same_topic(self) -> bool:
        return self.kind in SAME_TOPIC_KINDS


def select_abstracts(abstracts: Sequence[Abstract], settings: TopicModelSettings) -> list[Abstract]:
    """Abstracts with a conclusion and another claim sentence; a seeded, order-free sample of them."""
    usable = [
        a
        for a in abstracts
        if a.indices(Role.CONCLUSIONS) and sum(s.role in CLAIM_ROLES for s in a.sentences) >= 2
    ]
    if len(usable) < len(abstracts):
        log.info(
            "topic model: %d of %d abstracts lack a conclusion and a second claim sentence; left out",
            len(abstracts) - len(usable),
            len(abstracts),
        )
    if settings.max_abstracts is not None and len(usable) > settings.max_abstracts:
        # by hash rank, so the sample does not depend on the order of the corpus
        usable = sorted(usable, key=lambda a: group_draw(settings.seed, a.pmid))[: settings.max_abstracts]
    return sorted(usable, key=lambda a: a.pmid)


def sample_pairs(abstracts: Sequence[Abstract], settings: TopicModelSettings, part: str) -> list[TopicPair]:
    """Same-topic pairs and as many different-abstract pairs, all within ``abstracts`` (one part)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    rng = random.Random(f"{settings.seed}:{part}")
    claims = [(a.pmid, s.text) for a in abstracts for s in a.sentences if s.role in CLAIM_ROLES]
    owner = np.array([pmid for pmid, _ in claims])
    texts = [text for _, text in claims]
    if len(set(owner.tolist())) < 2:
        raise InputFormatError("abstracts", f"the {part} part needs claim sentences of two abstracts or more")
    vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english").fit(texts)
    positives: list[TopicPair] = []
    for abstract in abstracts:
        combinations = _same_topic_partners(abstract, vectorizer, settings.supporting_results)
        for conclusion, partner, kind in rng.sample(
            combinations, min(settings.pairs_per_abstract, len(combinations))
        ):
            positives.append(TopicPair(partner, conclusion, kind, abstract.pmid))
    lexical = int(round(settings.lexical_negative_share * len(positives)))
    lexical_rows = set(rng.sample(range(len(positives)), lexical))
    neighbours = _lexical_neighbours(
        vectorizer, texts, owner, [positives[i] for i in sorted(lexical_rows)], settings.lexical_neighbours
    )
    negatives = []
    for row, positive in enumerate(positives):
        close = neighbours.get((positive.candidate, positive.pmid), []) if row in lexical_rows else []
        if close:
            choice, kind = rng.choice(close), "lexical_neighbour"
        else:
            choice, kind = _random_other(rng, texts, owner, positive), "random_abstract"
        negatives.append(TopicPair(texts[choice], positive.candidate, kind, positive.pmid))
    return positives + negatives


def _random_other(rng: random.Random, texts: list[str], owner: np.ndarray, pair: TopicPair) -> int:
    """A claim sentence of another abstract, uniformly (rejection sampling; almost every draw fits)."""
    for _ in range(100):
        choice = rng.randrange(len(texts))
        if owner[choice] != pair.pmid and texts[choice] != pair.candidate:
            return choice
    return rng.choice([i for i, text in enumerate(texts) if owner[i] != pair.pmid and text != pair.candidate])


def _same_topic_partners(
    abstract: Abstract, vectorizer, supporting_results: int | None
) -> list[tuple[str, str, PairKind]]:
    """(conclusion, partner, kind): the other conclusions, and the results that support the
    conclusion — the ``supporting_results`` closest to it by TF-IDF, as the pairs stage's
    TF-IDF selector chooses them — since "same exact topic" (prompt E.3.5) is not every result of the abstract
    ("Mean age was 71 years" is not about the conclusion's topic)."""
    conclusions = [abstract.sentences[i].text for i in abstract.indices(Role.CONCLUSIONS)]
    results = [abstract.sentences[i].text for i in abstract.indices(Role.RESULTS)]
    combinations = [
        (c, other, "conclusion_conclusion") for c in conclusions for other in conclusions if other != c
    ]
    if results and conclusions:
        result_vectors = vectorizer.transform(results)
        for conclusion, row in zip(conclusions, vectorizer.transform(conclusions), strict=True):
            closeness = (row @ result_vectors.T).toarray()[0]
            # stable sort: ties go to the earlier sentence
            order = sorted(range(len(results)), key=lambda i: -closeness[i])[:supporting_results]
            combinations += [(conclusion, results[i], "result_conclusion") for i in order]
    return combinations


def _lexical_neighbours(
    vectorizer, texts: list[str], owner: np.ndarray, anchors: list[TopicPair], count: int
) -> dict[tuple[str, str], list[int]]:
    """For each anchor conclusion, the ``count`` claim sentences of other abstracts closest by TF-IDF."""
    if not anchors:
        return {}
    matrix = vectorizer.transform(texts)
    queries = vectorizer.transform([pair.candidate for pair in anchors])
    same_text: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        same_text.setdefault(text, []).append(i)
    found: dict[tuple[str, str], list[int]] = {}
    for start in range(0, len(anchors), 256):
        block = (queries[start : start + 256] @ matrix.T).toarray()
        for offset, similarities in enumerate(block):
            pair = anchors[start + offset]
            similarities[owner == pair.pmid] = -1.0
            # the same sentence in another abstract (a boilerplate conclusion) is no negative
            similarities[same_text.get(pair.candidate, [])] = -1.0
            top = np.argpartition(-similarities, min(count, len(similarities) - 1))[:count]
            found[pair.candidate, pair.pmid] = [int(i) for i in top if similarities[i] >= 0.0]
    return found


def cosine_scores(encoder: str, references: Sequence[str], candidates: Sequence[str], batch_size: int):
    """Cosines of (reference, candidate) pairs mapped to [0, 1]; each distinct sentence encoded once."""
    texts = sorted(set(references) | set(candidates))
    vectors = encode(encoder, texts, batch_size)
    row = {text: i for i, text in enumerate(texts)}
    left = vectors[[row[t] for t in references]]
    right = vectors[[row[t] for t in candidates]]
    return (1.0 + np.clip((left * right).sum(axis=1), -1.0, 1.0)) / 2.0


class TopicModel(FittedModel):
    """P(same topic) of sentence pairs: the encoder's cosine through a fitted calibration;
    ``held_out`` keeps the probability and kind of each held-out pair."""

    FORMAT = FORMAT
    settings: TopicModelSettings

    def probabilities(self, reference_texts: Sequence[str], candidate_texts: Sequence[str]) -> list[float]:
        if len(reference_texts) != len(candidate_texts):
            raise ValueError("one reference per candidate")
        if not candidate_texts:
            return []
        raw = cosine_scores(self.settings.encoder, reference_texts, candidate_texts, self.settings.batch_size)
        return self.calibrate(raw)

    def calibrate(self, raw_scores: Sequence[float]) -> list[float]:
        """Probabilities from cosines already mapped to [0, 1] (e.g. cached embedding-similarity scores)."""
        return [float(p) for p in self.calibration(np.asarray(raw_scores, dtype=float))]

    def quality(self, threshold: float) -> dict:
        """Held-out ROC-AUC, Brier, log loss, ECE, and what ``threshold`` passes and rejects."""
        probabilities = np.asarray(self.held_out["probability"], dtype=float)
        kinds = np.asarray(self.held_out["kind"])
        same = np.isin(kinds, SAME_TOPIC_KINDS)
        passed = meets_threshold(probabilities, threshold)
        report = calibration_report(probabilities, same.astype(int))
        report.update(
            threshold=threshold,
            method=self.calibration.method,
            same_topic_pass_rate=_rate(passed[same]),
            conclusion_conclusion_pass_rate=_rate(passed[kinds == "conclusion_conclusion"]),
            result_conclusion_pass_rate=_rate(passed[kinds == "result_conclusion"]),
            different_abstract_reject_rate=_rate(~passed[~same]),
            random_abstract_reject_rate=_rate(~passed[kinds == "random_abstract"]),
            lexical_neighbour_reject_rate=_rate(~passed[kinds == "lexical_neighbour"]),
            fitted_on=self.fitted,
        )
        return report

    def roc_curve(self) -> list[dict]:
        """Held-out ROC points (false and true positive rate per probability threshold)."""
        from sklearn.metrics import roc_curve

        labels = [kind in SAME_TOPIC_KINDS for kind in self.held_out["kind"]]
        fpr, tpr, thresholds = roc_curve(labels, self.held_out["probability"], drop_intermediate=True)
        return [
            {"threshold": round(float(min(t, 1.0)), 4), "fpr": round(float(f), 4), "tpr": round(float(r), 4)}
            for f, r, t in zip(fpr, tpr, thresholds, strict=True)
        ]


def _rate(flags: np.ndarray) -> float | None:
    return round(float(flags.mean()), 4) if flags.size else None


def topic_model_key(abstracts: Sequence[Abstract], settings: TopicModelSettings) -> str:
    """The cache key: claim sentences used, fitting code, scikit-learn version, encoder weights, settings."""
    sentences = [
        [a.pmid, [[s.role.value, s.text] for s in a.sentences if s.role in CLAIM_ROLES]] for a in abstracts
    ]
    return model_key(FORMAT, __file__, settings.encoder, settings, sentences)


def fit_topic_model(
    abstracts: Sequence[Abstract], settings: TopicModelSettings, cache_dir: Path | None = None
) -> TopicModel:
    """The same-topic model of ``abstracts``: loaded from the cache, or fitted and cached."""
    chosen = select_abstracts(abstracts, settings)
    key = topic_model_key(chosen, settings)
    return fit_or_load("topic", key, settings, lambda: _fit(chosen, settings), TopicModel, cache_dir)


def _fit(chosen: Sequence[Abstract], settings: TopicModelSettings) -> TopicModel:
    held_out = [a for a in chosen if is_held_out(settings.seed, a.pmid, settings.held_out_fraction)]
    fitting = [a for a in chosen if not is_held_out(settings.seed, a.pmid, settings.held_out_fraction)]
    if len(held_out) < 2 or len(fitting) < 2:
        raise InputFormatError(
            "abstracts",
            f"the topic model needs two abstracts or more in each part, got {len(fitting)} to fit "
            f"and {len(held_out)} held out ({len(chosen)} usable abstracts)",
        )
    fit_pairs = sample_pairs(fitting, settings, "fit")
    report_pairs = sample_pairs(held_out, settings, "held_out")
    pairs = fit_pairs + report_pairs
    log.info(
        "topic model: scoring %d pairs from %d abstracts (%d held out)",
        len(pairs),
        len(chosen),
        len(held_out),
    )
    raw = cosine_scores(
        settings.encoder, [p.reference for p in pairs], [p.candidate for p in pairs], settings.batch_size
    )
    fit_raw, report_raw = raw[: len(fit_pairs)], raw[len(fit_pairs) :]
    calibration = fit_calibration(fit_raw, [int(p.same_topic) for p in fit_pairs], settings.method)
    return TopicModel(
        settings,
        calibration,
        held_out={
            "probability": [round(float(p), 6) for p in calibration(report_raw)],
            "kind": [p.kind for p in report_pairs],
        },
        fitted={
            "abstracts": len(fitting),
            "held_out_abstracts": len(held_out),
            "pairs": len(fit_pairs),
            "held_out_pairs": len(report_pairs),
        },
    )
