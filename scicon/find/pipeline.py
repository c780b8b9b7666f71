"""A find run end to end: models loaded from the settings, claims found, outputs written."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scicon.classifier import ContradictionClassifier, plain_pairs_classifier
from scicon.classifier_folder import untrained_reason
from scicon.errors import InputNotFoundError
from scicon.find.claims import claims_from_abstracts, require_claims
from scicon.find.page import render_page
from scicon.find.params import FindParams
from scicon.find.run import (
    NONE_TO_REREAD,
    Calibrate,
    ClaimProbability,
    Encoder,
    FindResult,
    Score,
    Verifier,
    find_contradictions,
)
from scicon.fitted.base import encode
from scicon.fitted.claim_model import ClaimModelSettings, fit_claim_model
from scicon.fitted.topic_model import TopicModelSettings, fit_topic_model
from scicon.io import atomic_open, read_jsonl, staged_folder, write_jsonl
from scicon.params import validate_section
from scicon.records.corpus import Abstract
from scicon.records.find import Claim, FoundPair, StanceGroupRecord

log = logging.getLogger(__name__)


def finder_claim_settings(
    shared: ClaimModelSettings, params: FindParams, origin: str = "params.yaml"
) -> ClaimModelSettings:
    """The finder's claim model: the project's (``filter_models.claim_model``, EvoNLI's claim
    filter's too) with ``find.claim_model``'s changes."""
    values = shared.model_dump(mode="json") | params.claim_model
    return validate_section(ClaimModelSettings, values, "find.claim_model.", origin=origin)


@dataclass
class FinderModels:
    """What a find run scores with: the fitted same-topic and claim models, the classifier and the
    verifier that re-reads its best-ranked pairs."""

    same_topic: Calibrate
    score: Score
    claim_probability: ClaimProbability
    quality: dict  # the fitted models' held-out quality, for the report
    verifier: Verifier


def caching_encoder(topic: TopicModelSettings) -> Encoder:
    """The topic model's sentence encoder, each text encoded once (a claim is encoded for its
    evidence and again for its neighbours)."""
    encoded: dict[str, np.ndarray] = {}

    def encoder(texts: Sequence[str]) -> np.ndarray:
        new = [text for text in dict.fromkeys(texts) if text not in encoded]
        if new:
            encoded.update(zip(new, encode(topic.encoder, new, topic.batch_size), strict=True))
        return np.stack([encoded[text] for text in texts]) if texts else np.zeros((0, 0), dtype=np.float32)

    return encoder


def finder_models(
    params: FindParams,
    topic: TopicModelSettings,
    claim_settings: ClaimModelSettings,
    calibration_abstracts: Sequence[Abstract],
) -> FinderModels:
    """The same-topic and claim models fitted on ``calibration_abstracts`` (or from the cache),
    and the classifier of ``find.classifier`` and the verifier of ``find.verifier``, calibrated."""
    claim_model = fit_claim_model(calibration_abstracts, claim_settings)
    topic_model = fit_topic_model(calibration_abstracts, topic)
    classifier = ContradictionClassifier(params.classifier, batch_size=params.batch_size)
    quality = {
        "same_topic_model": topic_model.quality(params.min_same_topic),
        "claim_model": claim_model.quality(params.min_claim),
    }
    return FinderModels(
        topic_model.calibrate,
        _calibrated(classifier, "find: scoring"),
        claim_model.probabilities,
        quality,
        finder_verifier(params),
    )


def finder_verifier(params: FindParams) -> Verifier:
    """The verifier of ``find.verifier``, or why there is none: ``find.verifier_top`` 0, or a folder
    its stage marked untrained (the re-read is then off and the ranking the classifier's)."""
    if not params.verifier_top:
        return Verifier(None, NONE_TO_REREAD)
    if not Path(params.verifier).is_dir():
        raise InputNotFoundError(
            f"find.verifier: {params.verifier} not found (the verifier stage writes it, marked untrained "
            "unless verifier.train: `dvc repro verifier`, or `dvc pull models/verifier`)"
        )
    why = untrained_reason(params.verifier)
    if why is not None:
        log.info("find: %s is untrained (%s), so nothing is re-read", params.verifier, why)
        return Verifier(None, f"{params.verifier} holds no trained verifier ({why})")
    verifier = plain_pairs_classifier(params.verifier, "find.verifier", batch_size=params.batch_size)
    return Verifier(_calibrated(verifier, "find: re-reading"))


def _calibrated(classifier: ContradictionClassifier, progress: str) -> Score:
    def score(pairs: Sequence[tuple[str, str]]) -> list[float]:
        return classifier.calibrate(classifier.raw_contradiction_probabilities(pairs, progress=progress))

    return score


def run_find(
    params: FindParams,
    topic: TopicModelSettings,
    claim_settings: ClaimModelSettings,
    calibration_abstracts: Sequence[Abstract],
    claims: Sequence[Claim] | None = None,
    origin: str = "the abstracts",
) -> FindResult:
    """Find contradicting claims: those of ``claims``, or the ``params.claim_roles`` sentences
    of the abstracts; the same-topic and claim models are fitted on ``calibration_abstracts``."""
    encoder = caching_encoder(topic)
    started = time.perf_counter()
    if claims is None:
        claims = claims_from_abstracts(calibration_abstracts, params.claim_roles, encoder)
    claims_seconds = time.perf_counter() - started
    require_claims(claims, origin)
    if len({claim.group for claim in claims}) < 2:
        # nothing to compare, so nothing to fit or load: the result is empty and says why
        return find_contradictions(
            claims, params, encoder, lambda cosines: [], lambda pairs: [], lambda texts: [1.0] * len(texts)
        )
    models = finder_models(params, topic, claim_settings, calibration_abstracts)
    result = find_contradictions(
        claims, params, encoder, models.same_topic, models.score, models.claim_probability, models.verifier
    )
    # claims read from abstracts were encoded then, with their evidence
    result.report["timings"]["seconds"]["claims"] = round(claims_seconds, 3)
    result.report |= models.quality
    return result


def write_outputs(
    result: FindResult, params: FindParams, out: Path, page: Path, reviews: dict[str, dict] | None = None
) -> None:
    """``contradictions.jsonl`` and ``stance_groups.jsonl`` into ``out``, and the page."""
    with staged_folder(out) as staging:
        write_jsonl(staging / "contradictions.jsonl", result.pairs)
        write_jsonl(staging / "stance_groups.jsonl", result.groups)
    write_page(result.pairs, result.groups, result.report, params, page, reviews)


def write_page(
    pairs: Sequence[FoundPair],
    groups: Sequence[StanceGroupRecord],
    report: dict,
    params: FindParams,
    page: Path,
    reviews: dict[str, dict] | None = None,
) -> None:
    shown = {
        "classifier", "flag_rate", "min_claim", "min_same_topic", "neighbours",
        "verifier", "verifier_top", "verifier_rank",
    }  # fmt: skip
    settings = params.model_dump(mode="json", include=shown) | {
        "flag_threshold": report.get("flag", {}).get("threshold")
    }
    with atomic_open(page) as handle:
        handle.write(render_page(pairs, groups, report, settings, params.page_pairs, reviews))


def read_outputs(out: Path) -> tuple[list[FoundPair], list[StanceGroupRecord]]:
    return (
        list(read_jsonl(out / "contradictions.jsonl", FoundPair)),
        list(read_jsonl(out / "stance_groups.jsonl", StanceGroupRecord)),
    )
