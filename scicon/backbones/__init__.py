"""Foundation-model backends behind one interface, with a persistent call cache.

Backends are registered components (:data:`BACKENDS`): each module registers its
factory with its settings model, the block ``backbone.<name>`` of params.yaml.
``load_backbone(params)`` builds the backend named by ``backbone.backend`` and wraps
it in :class:`CachedBackbone`, which every stage uses as a context manager.
Identical configurations share one loaded model.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from scicon.backbones.base import (
    BackboneError,
    Backend,
    Completion,
    GenerationRequest,
    Sampling,
    YesNo,
)
from scicon.backbones.cache import CACHE_FILE, CachedBackbone, CallCache
from scicon.backbones.params import BackboneParams, merged_backbone_params
from scicon.paths import cache_root
from scicon.registry import Registry

log = logging.getLogger(__name__)


class BackendFactory(Protocol):
    """A registered backend: the backbone section, its own block of it (``backbone.<name>``)
    validated, and where to remember file digests and server reports."""

    def __call__(self, params: BackboneParams, settings: Any, digests: CallCache | None) -> Backend: ...


BACKENDS: Registry[BackendFactory] = Registry("backend", package=__name__)

__all__ = [
    "BACKENDS",
    "Backend",
    "BackboneError",
    "BackboneParams",
    "CachedBackbone",
    "CallCache",
    "Completion",
    "GenerationRequest",
    "Sampling",
    "YesNo",
    "build_backend",
    "load_backbone",
    "merged_backbone_params",
]


def build_backend(params: BackboneParams, digests: CallCache | None = None) -> Backend:
    """A new, uncached backend for ``params``; ``digests`` remembers file digests and server reports."""
    entry = BACKENDS.get(params.backend, key="backbone.backend")
    return entry.factory(params, params.settings(), digests)


@dataclass
class _Loaded:
    backend: Backend
    cache: CallCache
    users: int = 0


_loaded: dict[tuple[str, str], _Loaded] = {}
_loaded_lock = threading.Lock()


def load_backbone(params: BackboneParams, cache_path: Path | None = None) -> CachedBackbone:
    """The configured backbone behind the persistent cache (``$SCICON_CACHE_DIR/calls.sqlite``).

    Two loads with identical params share one backend (one copy of the weights in
    memory, one connection pool); each handle counts its own calls, and the backend
    is closed when the last handle is.
    """
    path = Path(cache_path or cache_root() / CACHE_FILE).resolve()
    key = (params.model_dump_json(), str(path))
    with _loaded_lock:
        loaded = _loaded.get(key)
        if loaded is None:
            cache = CallCache(path)
            loaded = _Loaded(build_backend(params, digests=cache), cache)
            _loaded[key] = loaded
            log.info(
                "backbone: %s %s (call cache %s, %d entries)",
                params.backend,
                params.model,
                cache.path,
                len(cache),
            )
        loaded.users += 1

    def release() -> None:
        with _loaded_lock:
            loaded.users -= 1
            if loaded.users:
                return
            del _loaded[key]
        loaded.backend.close()
        loaded.cache.close()

    return CachedBackbone(loaded.backend, loaded.cache, release=release)
