"""Parameters of the foundation model (`backbone` in params.yaml).

Common keys (which backend, which model) sit at ``backbone.*``; each registered
backend reads its own block, ``backbone.<backend name>.*``. A component that needs a
different model names only what differs, as a partial dict merged over the section
(:func:`merged_backbone_params`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from scicon.errors import ParamsError
from scicon.params import Operational, Section, nested_section, validate_section


class LlamaCppSettings(Section):
    """``backbone.llama_cpp``: GGUF models in-process through llama-cpp-python."""

    threads: int | None = Operational(gt=0, description="CPU threads (null: the stage's, top-level threads)")


class TransformersSettings(Section):
    """``backbone.transformers``: Hugging Face causal language models in-process."""

    batch_size: int = Field(gt=0, description="prompts per forward pass")
    device: str
    dtype: str


class OpenAISettings(Section):
    """``backbone.openai``: any OpenAI-compatible server (vLLM, SGLang, llama.cpp server, TGI)."""

    # Where the model is served changes no answer (the served model's identity is checked
    # separately), so adding a replica reruns nothing.
    base_url: str | tuple[str, ...] | None = Operational(
        description="one URL (a single server, a load balancer, Ray Serve) or a list of replicas"
    )
    api: Literal["chat", "completions"]
    api_key_env: str | None = Operational()
    max_concurrency: int = Operational(gt=0, description="requests in flight per endpoint")
    timeout_seconds: float = Operational(gt=0)
    max_retries: int = Operational(ge=0)
    top_logprobs: int = Field(gt=0, description="next-token candidates read by yes/no scoring")

    @field_validator("base_url")
    @classmethod
    def _urls_are_distinct(cls, value):
        if isinstance(value, tuple):
            if not value:
                return None
            if len(set(value)) != len(value):
                raise ValueError("an endpoint is listed more than once")
        return value

    @property
    def endpoints(self) -> tuple[str, ...]:
        if self.base_url is None:
            return ()
        return (self.base_url,) if isinstance(self.base_url, str) else self.base_url


class BackboneParams(Section):
    """The foundation model behind every generation and yes/no score (paper section 3.2.1)."""

    backend: str = Field(description="a registered backend: llama_cpp | transformers | openai")
    model: str = Field(min_length=1)
    chat_template: Literal["auto", "none"]
    revision: str | None = Field(description="hub revision, or a tag for a served model")
    context_length: int = Field(gt=0)
    llama_cpp: LlamaCppSettings
    transformers: TransformersSettings
    openai: OpenAISettings

    @field_validator("backend")
    @classmethod
    def _backend_is_registered(cls, value: str) -> str:
        # The registered backends are those with a block here (tests/test_backbone_params.py
        # checks both ways), so the check needs no import of the package that registers them.
        known = sorted(name for name, field in cls.model_fields.items() if nested_section(field))
        if value not in known:
            raise ValueError(f"unknown backend {value!r} (known: {', '.join(known)})")
        return value

    def settings(self) -> Section:
        """The settings block of the chosen backend."""
        return getattr(self, self.backend)


def merged_backbone_params(
    base: BackboneParams, overrides: dict[str, Any] | None, key: str = "backbone"
) -> BackboneParams:
    """``base`` with the partial dict ``overrides`` merged in, key by key, and validated.

    This is how a component names its own model: ``{"model": "other.gguf"}`` or
    ``{"backend": "openai", "openai": {"base_url": "http://gpu:8000/v1"}}``. Errors
    name the full key under ``key`` (e.g. ``evolve.goal.backbone.openai.api``).
    """
    if not overrides:
        return base
    if not isinstance(overrides, dict):
        raise ParamsError(f"{key}: expected a mapping of backbone keys (got {overrides!r})")
    merged = _deep_merge(base.model_dump(mode="python"), overrides)
    return validate_section(BackboneParams, merged, f"{key}.")


def _deep_merge(base: dict, overrides: dict) -> dict:
    merged = dict(base)
    for name, value in overrides.items():
        if isinstance(value, dict) and isinstance(merged.get(name), dict):
            merged[name] = _deep_merge(merged[name], value)
        else:
            merged[name] = value
    return merged
