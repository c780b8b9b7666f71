"""Parameters of the foundation model (`backbone` in params.yaml)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from scicon.params import Operational, Section


class BackboneParams(Section):
    """The foundation model behind every generation and yes/no score (paper section 3.2.1)."""

    backend: Literal["llama_cpp", "transformers", "openai"]
    model: str = Field(min_length=1)
    chat_template: Literal["auto", "none"]
    revision: str | None = Field(description="hub revision, or a tag for a served model")
    context_length: int = Field(gt=0)
    threads: int | None = Operational(gt=0, description="llama.cpp CPU threads")
    batch_size: int = Field(gt=0, description="transformers batch size")
    device: str
    dtype: str
    base_url: str | None
    api: Literal["chat", "completions"]
    api_key_env: str | None = Operational()
    max_concurrency: int = Operational(gt=0)
    timeout_seconds: float = Operational(gt=0)
    max_retries: int = Operational(ge=0)
    top_logprobs: int = Field(gt=0)

    @model_validator(mode="after")
    def _server_needs_url(self) -> BackboneParams:
        if self.backend == "openai" and not self.base_url:
            raise ValueError("backend 'openai' needs base_url (e.g. http://localhost:8000/v1)")
        return self
