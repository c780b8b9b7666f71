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

from scicon.backbones import CachedBackbone
from scicon.backbones.cache import CallCache, answer_from_cache, weights_identity
from scicon.constraints.base import BACKBONE_COST, LOCAL_MODEL_COST, ConstraintCheck, Reference
from scicon.models import resolve_model
from scicon.prompts import SIMILARITY


def _reference(check: ConstraintCheck, reference: Reference) -> str:
    return check.sentence1 if reference == "sentence1" else check.original


class LlmSimilarity:
    kind = "similarity"
    name = "llm"
    cost = BACKBONE_COST

    def __init__(self, backbone: CachedBackbone, threshold: float, reference: Reference = "sentence1"):
        self.backbone = backbone
        self.threshold = threshold
        self.reference = reference

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float]:
        prompts = [
            SIMILARITY.format(sentence1=_reference(check, self.reference), sentence2=check.candidate)
            for check in checks
        ]
        return self.backbone.yes_probability(prompts)


class EmbeddingSimilarity:
    """MiniLM cosine; with a call cache, each (reference, candidate) score is computed once
    ever, so a threshold rerun re-encodes nothing it has scored before."""

    kind = "similarity"
    name = "embedding"
    cost = LOCAL_MODEL_COST

    def __init__(
        self,
        model: str,
        threshold: float,
        reference: Reference = "sentence1",
        cache: CallCache | None = None,
    ):
        from sentence_transformers import SentenceTransformer

        path = resolve_model(model)
        self.encoder = SentenceTransformer(path, device="cpu")
        self.threshold = threshold
        self.reference = reference
        self.cache = cache
        self._identity = None
        if cache is not None:
            identity = json.dumps(["embedding_similarity", weights_identity(path, cache)], sort_keys=True)
            self._identity = hashlib.sha256(identity.encode()).hexdigest()
        self._lock = threading.Lock()

    def _key(self, reference: str, candidate: str) -> str:
        return hashlib.sha256(json.dumps([self._identity, reference, candidate]).encode()).hexdigest()

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float]:
        pairs = [(_reference(check, self.reference), check.candidate) for check in checks]
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
