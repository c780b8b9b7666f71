"""Any OpenAI-compatible HTTP server (vLLM, llama.cpp server, TGI, hosted APIs).

This is how a generation run scales out: requests of a batch are sent
concurrently (``max_concurrency``), each retried with exponential backoff on
timeouts, connection errors, HTTP 429/5xx and malformed replies. Scoring asks for
one token with ``top_logprobs`` and adds up the yes and no tokens among them; it
never samples an answer. The API key is read from the environment variable named
in params and is sent only in the Authorization header — it is not logged, put in
error messages or written anywhere.

With ``api: chat`` the server applies the model's chat template to the prompt;
``api: completions`` sends the prompt as raw text (for base models).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import httpx

from scicon.backbones.base import BackboneError, GenerationRequest, YesNo, yes_no_from_logprobs

log = logging.getLogger(__name__)

_RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class _Retryable(Exception):
    pass


class OpenAICompatibleBackend:
    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api: Literal["chat", "completions"] = "chat",
        api_key_env: str | None = "OPENAI_API_KEY",
        revision: str | None = None,
        max_concurrency: int = 8,
        timeout_seconds: float = 120.0,
        max_retries: int = 4,
        top_logprobs: int = 20,
    ):
        self.model = model
        self.api = api
        self._revision = revision
        self._max_retries = max_retries
        self._top_logprobs = top_logprobs
        headers = {}
        key = os.environ.get(api_key_env) if api_key_env else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._client = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers=headers,
            timeout=timeout_seconds,
            limits=httpx.Limits(max_connections=max_concurrency),
        )
        self._pool = ThreadPoolExecutor(max_workers=max_concurrency, thread_name_prefix="scicon-http")

    def identity(self) -> dict:
        # The server is not part of the identity: the same model behind another node
        # gives the same answers. `revision` is the user's handle to invalidate.
        return {"backend": self.name, "model": self.model, "revision": self._revision, "api": self.api}

    def _body(self, prompt: str, **settings) -> tuple[str, dict]:
        if self.api == "chat":
            return "/chat/completions", {
                "model": self.model,
                "messages": [{"role": "user", "content": prompt}],
                **settings,
            }
        return "/completions", {"model": self.model, "prompt": prompt, **settings}

    def generate(self, requests: Sequence[GenerationRequest]) -> list[str]:
        def one(request: GenerationRequest) -> str:
            sampling = request.sampling
            path, body = self._body(
                request.prompt,
                max_tokens=sampling.max_tokens,
                temperature=sampling.temperature,
                top_p=sampling.top_p,
                seed=request.seed,
                n=1,
            )
            reply = self._post(path, body, lambda data: _completion_text(data, self.api))
            return reply

        return list(self._pool.map(one, requests))

    def yes_no(self, prompts: Sequence[str]) -> list[YesNo]:
        if self.api == "chat":
            settings = {
                "max_tokens": 1,
                "temperature": 0,
                "logprobs": True,
                "top_logprobs": self._top_logprobs,
            }
        else:
            settings = {"max_tokens": 1, "temperature": 0, "logprobs": self._top_logprobs}

        def one(prompt: str) -> YesNo:
            path, body = self._body(prompt, **settings)
            return self._post(path, body, lambda data: yes_no_from_logprobs(_top_logprobs(data, self.api)))

        return list(self._pool.map(one, prompts))

    def _post(self, path: str, body: dict, read: Callable[[dict], object]):
        delay = 0.5
        for attempt in range(1, self._max_retries + 2):
            try:
                try:
                    response = self._client.post(path, json=body)
                except httpx.TransportError as error:  # timeouts, refused connections
                    raise _Retryable(f"{type(error).__name__}: {error}") from error
                if response.status_code in _RETRY_STATUS:
                    raise _Retryable(f"HTTP {response.status_code}")
                if response.status_code >= 400:
                    raise BackboneError(
                        f"{self._client.base_url}{path}: HTTP {response.status_code}: {response.text[:300]}"
                    )
                try:
                    return read(response.json())
                except (json.JSONDecodeError, KeyError, IndexError, TypeError) as error:
                    raise _Retryable(f"malformed reply ({type(error).__name__}: {error})") from error
            except _Retryable as error:
                if attempt > self._max_retries:
                    raise BackboneError(
                        f"{self._client.base_url}{path}: failed after {attempt} attempts: {error}"
                    ) from error
                log.warning("%s%s: %s; retry %d in %.1fs", self._client.base_url, path, error, attempt, delay)
                time.sleep(delay)
                delay = min(delay * 2, 30.0)
        raise AssertionError("unreachable")

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self._client.close()


def _completion_text(data: dict, api: str) -> str:
    choice = data["choices"][0]
    text = choice["message"]["content"] if api == "chat" else choice["text"]
    if not isinstance(text, str):
        raise TypeError(f"completion text is {type(text).__name__}")
    return text


def _top_logprobs(data: dict, api: str) -> list[tuple[str, float]]:
    logprobs = data["choices"][0]["logprobs"]
    if logprobs is None:
        raise BackboneError(
            "the server returned no logprobs; yes/no scoring needs them "
            "(llama.cpp's server must be started with --logits_all true)"
        )
    if api == "chat":
        content = logprobs["content"]
        if not content:
            return []
        return [(entry["token"], float(entry["logprob"])) for entry in content[0]["top_logprobs"]]
    top = logprobs["top_logprobs"]
    if not top:
        return []
    return [(token, float(logprob)) for token, logprob in top[0].items()]
