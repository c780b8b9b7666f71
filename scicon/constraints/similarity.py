"""SIMSCORE: does the candidate still discuss the same topic?

The paper asks the backbone (prompt E.3.5). The cheap alternative is the cosine of
all-MiniLM-L6-v2 sentence embeddings, which measures topic and not agreement (a
direct contradiction of a sentence scores about 0.99 against it), which is what
this filter needs. By default the candidate is compared with sentence1, the fixed
side of the pair it must contradict; ``reference: original`` compares it with the
sentence2 it was made from.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence

from pydantic import Field

from scicon.backbones.cache import CachedBackbone, CallCache, answer_from_cache, weights_identity
from scicon.constraints import CONSTRAINTS
from scicon.constraints.base import (
    BACKBONE_COST,
    LOCAL_MODEL_COST,
    ConstraintCheck,
    Reference,
    ThresholdConstraint,
    answered,
)
from scicon.evolve.context import AssemblyContext
from scicon.models import resolve_model
from scicon.params import Section
from scicon.prompts import SIMILARITY


class LlmSimilaritySettings(Section):
    reference: Reference = Field(description="compare candidates with sentence1 or the original sentence2")
    backbone: dict | None = Field(description="overrides of the backbone section for this filter")


class LlmSimilarity(ThresholdConstraint):
    kind = "similarity"
    name = "llm"
    cost = BACKBONE_COST

    def __init__(self, backbone: CachedBackbone, threshold: float, reference: Reference, min_mass: float):
        self.backbone = backbone
        self.threshold = threshold
        self.reference = reference
        self.min_mass = min_mass

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float | None]:
        prompts = [
            SIMILARITY.format(sentence1=check.reference(self.reference), sentence2=check.candidate)
            for check in checks
        ]
        return answered(self.backbone.yes_no(prompts, kind=self.kind), self.min_mass)


@CONSTRAINTS.register(
    "similarity.llm",
    settings=LlmSimilaritySettings,
    needs_backbone=True,
    description="the backbone answers 'same exact topic?' (prompt E.3.5)",
)
def llm_similarity(settings: LlmSimilaritySettings, context: AssemblyContext) -> LlmSimilarity:
    backbone = context.backbone(settings.backbone, "evolve.settings.similarity.llm.backbone")
    return LlmSimilarity(backbone, context.thresholds.sim, settings.reference, context.min_mass)


class EmbeddingSimilaritySettings(Section):
    model: str = Field(min_length=1, description="a sentence-transformers encoder")
    reference: Reference = Field(description="compare candidates with sentence1 or the original sentence2")


class EmbeddingSimilarity(ThresholdConstraint):
    """MiniLM cosine; with a call cache, each (reference, candidate) score is computed once
    ever, so a threshold rerun re-encodes nothing it has scored before."""

    kind = "similarity"
    name = "embedding"
    cost = LOCAL_MODEL_COST

    def __init__(self, model: str, threshold: float, reference: Reference, cache: CallCache | None = None):
        from sentence_transformers import SentenceTransformer

        path = resolve_model(model)
        self.encoder = SentenceTransformer(path, device="cpu")
        self.threshold = threshold
        self.reference = reference
        self.cache = cache
        self.identity = json.dumps(["embedding_similarity", weights_identity(path, cache)], sort_keys=True)
        self._key_prefix = hashlib.sha256(self.identity.encode()).hexdigest()
        self._lock = threading.Lock()

    def _key(self, reference: str, candidate: str) -> str:
        return hashlib.sha256(json.dumps([self._key_prefix, reference, candidate]).encode()).hexdigest()

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float | None]:
        pairs = [(check.reference(self.reference), check.candidate) for check in checks]
        keys = [self._key(*pair) for pair in pairs]
        scores, _ = answer_from_cache(self.cache, dict(zip(keys, pairs, strict=True)), self._cosines)
        return [scores[key] for key in keys]

    def _cosines(self, pairs: list[tuple[str, str]]) -> list[float]:
        # each distinct sentence once: the reference is usually the same for every candidate
        texts = sorted({text for pair in pairs for text in pair})
        with self._lock:
            vectors = self.encoder.encode(
                texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
        row = {text: vector for text, vector in zip(texts, vectors, strict=True)}
        # cosine in [-1, 1] mapped to [0, 1] so every threshold reads as a probability-like score
        return [float((1.0 + (row[r] * row[c]).sum()) / 2.0) for r, c in pairs]


@CONSTRAINTS.register(
    "similarity.embedding",
    settings=EmbeddingSimilaritySettings,
    description="sentence-embedding cosine with the reference sentence",
)
def embedding_similarity(
    settings: EmbeddingSimilaritySettings, context: AssemblyContext
) -> EmbeddingSimilarity:
    constraint = EmbeddingSimilarity(
        settings.model, context.thresholds.sim, settings.reference, context.cache
    )
    context.record_model(f"embedding:{settings.model}", constraint.identity)
    return constraint
