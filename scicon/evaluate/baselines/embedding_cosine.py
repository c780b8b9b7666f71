"""Embedding cosine: cosine similarity of the two sentences' sentence embeddings.

With the embedded all-MiniLM-L6-v2 by default, through sentence-transformers. Its
cosine tracks topic, not agreement (docs/evaluate.md, "Baselines"), so like word overlap it has no
a-priori direction and is reported both ways. Texts are embedded once each (premises
repeat across pairs), normalised, and the cosine is their dot product.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
from pydantic import Field

from scicon.evaluate.baselines import BASELINES
from scicon.models import resolve_model
from scicon.params import Section
from scicon.records.benchmark import BenchmarkPair
from scicon.threads import COMPUTE_LOCK

log = logging.getLogger(__name__)


class EmbeddingCosineSettings(Section):
    model: str = Field(
        min_length=1, description="sentence-transformers model: an `embedded:` name, a folder or a hub id"
    )


class EmbeddingCosine:
    def __init__(self, model: str):
        self.reference = model
        self._encoder = None

    def _encode(self, texts: list[str]) -> np.ndarray:
        if self._encoder is None:
            from sentence_transformers import SentenceTransformer

            self._encoder = SentenceTransformer(resolve_model(self.reference), device="cpu")
            log.info("embedding cosine: %s loaded", self.reference)
        with COMPUTE_LOCK:
            return self._encoder.encode(
                texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=len(texts) > 256
            )

    def __call__(self, pairs: Sequence[BenchmarkPair]) -> list[float]:
        texts = list(dict.fromkeys(text for p in pairs for text in (p.sentence1, p.sentence2)))
        vectors = dict(zip(texts, self._encode(texts), strict=True))
        return [float(np.dot(vectors[p.sentence1], vectors[p.sentence2])) for p in pairs]


@BASELINES.register(
    "embedding_cosine",
    settings=EmbeddingCosineSettings,
    two_sided=True,
    description="cosine similarity of the two sentences' embeddings (all-MiniLM-L6-v2 by default)",
)
def embedding_cosine(settings: EmbeddingCosineSettings, seed: int):
    return EmbeddingCosine(settings.model)
