"""What the filter models fitted on a corpus share: the sentence encoder, held-out parts
grouped by abstract, and one fit-or-load cache keyed by content (:func:`fit_or_load`).

A fitted filter (the same-topic calibration, the claim classifier) depends only on the
sentences it was fitted on, the encoder's weights, its settings, the code that fits it and
the scikit-learn version. Its cache key (:func:`model_key`) is a digest of exactly those, so
a rerun on the same abstracts (a `dvc exp run -S sim=0.7`, a resumed run) loads the fitted
model instead of refitting it, and any change refits.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar, Self, TypeVar

import numpy as np

from scicon import calibration
from scicon.backbones.cache import weights_identity
from scicon.calibration import Calibration
from scicon.codedeps.closure import code_digest
from scicon.io import atomic_open, write_json
from scicon.models import resolve_model
from scicon.params import Section
from scicon.paths import cache_root
from scicon.threads import COMPUTE_LOCK

log = logging.getLogger(__name__)

Fitted = TypeVar("Fitted", bound="FittedModel")

CACHE_FOLDER = "filters"


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
    return code_digest([Path(module_file), Path(__file__), Path(calibration.__file__)])


def model_key(
    format_name: str, module_file: str | Path, encoder: str | None, settings: Section, data: object
) -> str:
    """A fitted model's cache key: its state's format, the code that fits it, the scikit-learn
    version, the encoder's weights (``None``: it uses no encoder), the settings that change the
    fit (the batch size does not) and the data it is fitted on."""
    import sklearn

    return content_digest(
        format_name,
        fitting_code_digest(module_file),
        sklearn.__version__,
        encoder_identity(encoder) if encoder is not None else None,
        settings.model_dump(mode="json", exclude={"batch_size"}),
        data,
    )


class FittedModel:
    """What every fitted filter model keeps, and how it is cached: its settings, the calibration
    that maps its score to a probability, the held-out evidence of its quality report, and
    what it was fitted on. A subclass names its state's ``FORMAT`` and any further attributes
    (``STATE``, e.g. scikit-learn objects) that its constructor takes after these four."""

    FORMAT: ClassVar[str]
    STATE: ClassVar[tuple[str, ...]] = ()

    def __init__(self, settings: Section, calibration: Calibration, held_out: dict, fitted: dict):
        self.settings = settings
        self.calibration = calibration
        self.held_out = held_out  # per held-out example: the quality report's evidence
        self.fitted = fitted

    def to_state(self) -> dict:
        return {
            "format": self.FORMAT,
            "settings": self.settings.model_dump(mode="json"),
            "calibration": self.calibration.to_dict(),
            "held_out": self.held_out,
            "fitted": self.fitted,
            **{name: getattr(self, name) for name in self.STATE},
        }

    @classmethod
    def from_state(cls, state: dict, settings: Section) -> Self:
        if state.get("format") != cls.FORMAT:
            raise ValueError(f"not a {cls.FORMAT} file")
        calibration = Calibration.from_dict(state["calibration"])
        return cls(settings, calibration, state["held_out"], state["fitted"], *(state[n] for n in cls.STATE))


def fit_or_load(
    kind: str,
    key: str,
    settings: Section,
    fit: Callable[[], Fitted],
    model: type[Fitted],
    cache_dir: Path | None = None,
    binary: bool = False,
) -> Fitted:
    """The ``kind`` model cached under ``key``, or ``fit()``'s, cached there before it is returned.

    The file is ``<cache_dir>/<kind>-<key>.json`` (``.joblib`` with ``binary``, for a state that
    holds scikit-learn objects), written atomically; ``cache_dir`` defaults to
    :func:`filters_cache_dir`. ``key`` must be a digest of everything the fit depends on;
    ``settings`` are those the model is read back with.
    """
    path = (cache_dir or filters_cache_dir()) / f"{kind}-{key}.{'joblib' if binary else 'json'}"
    if path.is_file():
        log.info("%s model: fitted model read from %s", kind, path)
        return model.from_state(_read_state(path, binary), settings)
    fitted = fit()
    _write_state(path, fitted.to_state(), binary)
    log.info("%s model: fitted model cached at %s", kind, path)
    return fitted


def _read_state(path: Path, binary: bool) -> dict:
    if binary:
        import joblib

        return joblib.load(path)
    return json.loads(path.read_text(encoding="utf-8"))


def _write_state(path: Path, state: dict, binary: bool) -> None:
    if not binary:
        write_json(path, state)
        return
    import joblib

    with atomic_open(path, "wb") as handle:
        joblib.dump(state, handle)


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
    return content_digest(weights_identity(resolve_model(reference), None))


def encode(reference: str, texts: Sequence[str], batch_size: int) -> np.ndarray:
    """Unit-length sentence embeddings of ``texts`` (one row each) with the encoder ``reference``."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    encoder = _encoder(resolve_model(reference))
    with COMPUTE_LOCK:  # one encoder call at a time: evolve scores pairs from several threads
        return encoder.encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=len(texts) >= 2000,
        )
