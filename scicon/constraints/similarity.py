"""SIMSCORE: does the candidate still discuss the same topic?

The paper asks the backbone (prompt E.3.5) and thresholds its P(yes) at ``sim``. The
offline alternative is the cosine of all-MiniLM-L6-v2 sentence embeddings, which
measures topic and not agreement (a direct contradiction of a sentence scores about
0.99 against it), turned into P(same topic) by a calibration fitted on the ingested
abstracts themselves (:mod:`scicon.fitted.topic_model`), so that ``sim`` keeps the
paper's meaning. By default the candidate is compared with sentence1, the fixed side
of the pair it must contradict; ``reference: original`` compares it with the sentence2
it was made from.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Sequence

from pydantic import Field

from scicon.assembly_context import AssemblyContext
from scicon.backbones.cache import CachedBackbone, CallCache, answer_from_cache, weights_identity
from scicon.constraints import CONSTRAINTS
from scicon.constraints.base import (
    LOCAL_MODEL_COST,
    BackboneQuestion,
    BackboneQuestionSettings,
    ConstraintCheck,
    Reference,
    ThresholdConstraint,
)
from scicon.fitted.topic_model import TopicModelSettings, fit_topic_model
from scicon.models import resolve_model
from scicon.params import Probability, Section
from scicon.prompts import SIMILARITY


class LlmSimilaritySettings(BackboneQuestionSettings):
    reference: Reference = Field(description="compare candidates with sentence1 or the original sentence2")


class LlmSimilarity(BackboneQuestion):
    kind = "similarity"
    name = "llm"

    def __init__(self, backbone: CachedBackbone, threshold: float, reference: Reference, min_mass: float):
        super().__init__(backbone, threshold, min_mass)
        self.reference = reference

    def question(self, check: ConstraintCheck) -> str:
        return SIMILARITY.format(sentence1=check.reference(self.reference), sentence2=check.candidate)


@CONSTRAINTS.register(
    "similarity.llm",
    settings=LlmSimilaritySettings,
    needs_backbone=True,
    description="the backbone answers 'same exact topic?' (prompt E.3.5)",
    reads={"threshold": "sim"},
)
def llm_similarity(settings: LlmSimilaritySettings, context: AssemblyContext) -> LlmSimilarity:
    backbone = context.backbone(settings.backbone, "evolve.settings.similarity.llm.backbone")
    return LlmSimilarity(backbone, settings.threshold, settings.reference, settings.min_mass)


class EmbeddingSimilaritySettings(Section):
    reference: Reference = Field(description="compare candidates with sentence1 or the original sentence2")
    topic_model: TopicModelSettings = Field(description="the encoder and how its cosine is calibrated")
    threshold: float = Probability


class EmbeddingSimilarity(ThresholdConstraint):
    """P(same topic) from the encoder's cosine. With a call cache, each (reference, candidate)
    cosine is computed once ever, so a threshold rerun re-encodes nothing it has scored
    before; ``calibrate`` maps the cosine (in [0, 1]) to a probability."""

    kind = "similarity"
    name = "embedding"
    cost = LOCAL_MODEL_COST

    def __init__(
        self,
        model: str,
        threshold: float,
        reference: Reference,
        cache: CallCache | None = None,
        calibrate: Callable[[Sequence[float]], list[float]] | None = None,
        calibration: object = None,
        report: dict | None = None,
    ):
        from sentence_transformers import SentenceTransformer

        path = resolve_model(model)
        self.encoder = SentenceTransformer(path, device="cpu")
        self.threshold = threshold
        self.reference = reference
        self.cache = cache
        self.calibrate = calibrate
        self.calibration = calibration  # what identifies ``calibrate``
        self.report = report  # the calibration's held-out quality at the threshold
        self.identity = json.dumps(["embedding_similarity", weights_identity(path, cache)], sort_keys=True)
        self._key_prefix = hashlib.sha256(self.identity.encode()).hexdigest()
        self._lock = threading.Lock()

    def models(self) -> dict[str, object]:
        return {"encoder": self.identity, "calibration": self.calibration}

    def _key(self, reference: str, candidate: str) -> str:
        return hashlib.sha256(json.dumps([self._key_prefix, reference, candidate]).encode()).hexdigest()

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float | None]:
        pairs = [(check.reference(self.reference), check.candidate) for check in checks]
        keys = [self._key(*pair) for pair in pairs]
        scores, _ = answer_from_cache(self.cache, dict(zip(keys, pairs, strict=True)), self._cosines)
        cosines = [scores[key] for key in keys]
        return list(self.calibrate(cosines)) if self.calibrate is not None and cosines else cosines

    def _cosines(self, pairs: list[tuple[str, str]]) -> list[float]:
        # each distinct sentence once: the reference is usually the same for every candidate
        texts = sorted({text for pair in pairs for text in pair})
        with self._lock:
            vectors = self.encoder.encode(
                texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
        row = {text: vector for text, vector in zip(texts, vectors, strict=True)}
        # cosine in [-1, 1] mapped to [0, 1], the scale the topic model is calibrated on
        return [float((1.0 + (row[r] * row[c]).sum()) / 2.0) for r, c in pairs]


@CONSTRAINTS.register(
    "similarity.embedding",
    settings=EmbeddingSimilaritySettings,
    description="sentence-embedding cosine with the reference sentence",
    reads={"topic_model": "filter_models.topic_model", "threshold": "sim"},
)
def embedding_similarity(
    settings: EmbeddingSimilaritySettings, context: AssemblyContext
) -> EmbeddingSimilarity:
    topic = fit_topic_model(context.abstracts, settings.topic_model)
    return EmbeddingSimilarity(
        settings.topic_model.encoder,
        settings.threshold,
        settings.reference,
        context.cache,
        calibrate=topic.calibrate,
        calibration=topic.calibration.to_dict(),
        report=topic.quality(settings.threshold),
    )
