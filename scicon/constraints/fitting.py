"""What the filter models fitted on a corpus share: the sentence encoder, held-out parts
grouped by abstract, and a cache keyed by content.

A fitted filter (the same-topic calibration, the claim classifier) depends only on the
sentences it was fitted on, the encoder's weights, its settings and the code that fits it.
Its cache key is a digest of exactly those, so a rerun on the same abstracts (a `dvc exp run -S sim=0.7`, a
resumed run) loads the fitted model instead of refitting it, and any change refits.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from scicon.paths import cache_root

log = logging.getLogger(__name__)

CACHE_FOLDER = "filters"
_ENCODE_LOCK = threading.Lock()  # one encoder call at a time: evolve scores pairs from several threads


def filters_cache_dir() -> Path:
    """Where fitted filter models live: ``$SCICON_CACHE_DIR/filters``."""
    return cache_root() / CACHE_FOLDER


def content_digest(*parts: object) -> str:
    """SHA-256 of JSON-serialisable parts (sorted keys, so equal content gives equal keys)."""
    payload = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def fitting_code_digest(module_file: str | Path) -> str:
    """A digest of the code that fits a model (its module, this one, the calibration), so a
    changed sampling or fitting procedure is refitted rather than read from the cache."""
    from scicon import calibration
    from scicon.codedeps import code_digest

    return code_digest([Path(module_file), Path(__file__), Path(calibration.__file__)])


def group_draw(seed: int, group: str) -> float:
    """A uniform draw in [0, 1) from (seed, group): the same abstract always lands in the same part."""
    digest = hashlib.sha256(f"{seed}:{group}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def is_held_out(seed: int, group: str, fraction: float) -> bool:
    return group_draw(seed, group) < fraction


@functools.cache
def _encoder(path: str):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(path, device="cpu")


@functools.cache
def encoder_identity(reference: str) -> str:
    """A digest of the encoder's weights (file contents for a local folder, id for a hub model)."""
    from scicon.backbones.cache import weights_identity
    from scicon.models import resolve_model

    return content_digest(weights_identity(resolve_model(reference), None))


def encode(reference: str, texts: Sequence[str], batch_size: int) -> np.ndarray:
    """Unit-length sentence embeddings of ``texts`` (one row each) with the encoder ``reference``."""
    from scicon.models import resolve_model

    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    encoder = _encoder(resolve_model(reference))
    with _ENCODE_LOCK:
        return encoder.encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=len(texts) >= 2000,
        )
