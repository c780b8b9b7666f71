"""Foundation-model backends behind one interface, with a persistent call cache.

``load_backbone(params)`` builds the backend named in params.yaml's ``backbone``
section and wraps it in :class:`CachedBackbone`, which every stage uses.
"""

from __future__ import annotations

import logging
from pathlib import Path

from scicon.backbones.base import BackboneError, Backend, GenerationRequest, Sampling, YesNo
from scicon.backbones.cache import CACHE_FILE, CachedBackbone, CallCache
from scicon.backbones.params import BackboneParams
from scicon.models import resolve_model
from scicon.paths import cache_root

log = logging.getLogger(__name__)

__all__ = [
    "Backend",
    "BackboneError",
    "CachedBackbone",
    "CallCache",
    "GenerationRequest",
    "Sampling",
    "YesNo",
    "build_backend",
    "load_backbone",
]


def build_backend(params: BackboneParams, digests: CallCache | None = None) -> Backend:
    if params.backend == "openai":
        from scicon.backbones.openai_http import OpenAICompatibleBackend

        return OpenAICompatibleBackend(
            params.base_url or "",
            params.model,
            api=params.api,
            api_key_env=params.api_key_env,
            revision=params.revision,
            max_concurrency=params.max_concurrency,
            timeout_seconds=params.timeout_seconds,
            max_retries=params.max_retries,
            top_logprobs=params.top_logprobs,
        )
    model = resolve_model(params.model)
    if params.backend == "llama_cpp":
        from scicon.backbones.llama_cpp_backend import LlamaCppBackend

        return LlamaCppBackend(
            model,
            chat_template=params.chat_template,
            context_length=params.context_length,
            threads=params.threads,
            digests=digests,
        )
    from scicon.backbones.transformers_backend import TransformersBackend

    gguf_file = None
    if model.endswith(".gguf") and Path(model).is_file():
        model, gguf_file = str(Path(model).parent), Path(model).name
    return TransformersBackend(
        model,
        gguf_file=gguf_file,
        revision=params.revision,
        chat_template=params.chat_template,
        context_length=params.context_length,
        batch_size=params.batch_size,
        device=params.device,
        dtype=params.dtype,
        digests=digests,
    )


def load_backbone(params: BackboneParams, cache_path: Path | None = None) -> CachedBackbone:
    """The configured backbone behind the persistent cache (``$SCICON_CACHE_DIR/calls.sqlite``)."""
    cache = CallCache(cache_path or cache_root() / CACHE_FILE)
    backend = build_backend(params, digests=cache)
    log.info(
        "backbone: %s %s (call cache %s, %d entries)", params.backend, params.model, cache.path, len(cache)
    )
    return CachedBackbone(backend, cache)
