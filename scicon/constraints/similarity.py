"""SIMSCORE: does the candidate still discuss the same topic?

The paper asks the backbone (prompt E.3.5). The cheap alternative is the cosine of
all-MiniLM-L6-v2 sentence embeddings, which measures topic and not agreement (a
direct contradiction of a sentence scores about 0.99 against it), which is what
this filter needs. By default the candidate is compared with sentence1, the fixed
side of the pair it must contradict; ``reference: original`` compares it with the
sentence2 it was made from.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from scicon.backbones import CachedBackbone
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
    kind = "similarity"
    name = "embedding"
    cost = LOCAL_MODEL_COST

    def __init__(self, model: str, threshold: float, reference: Reference = "sentence1"):
        from sentence_transformers import SentenceTransformer

        self.encoder = SentenceTransformer(resolve_model(model), device="cpu")
        self.threshold = threshold
        self.reference = reference
        self._lock = threading.Lock()

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float]:
        if not checks:
            return []
        texts = [_reference(check, self.reference) for check in checks] + [c.candidate for c in checks]
        with self._lock:
            vectors = self.encoder.encode(
                texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
        references, candidates = vectors[: len(checks)], vectors[len(checks) :]
        # cosine in [-1, 1] mapped to [0, 1] so every threshold reads as a probability-like score
        return [float((1.0 + (r * c).sum()) / 2.0) for r, c in zip(references, candidates, strict=True)]
