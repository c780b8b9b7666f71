"""Any OpenAI-compatible HTTP server (vLLM, SGLang, llama.cpp server, TGI, hosted APIs).

This is how a generation run scales out. Requests of all pairs searched at once share
one pool of slots, ``max_concurrency`` per endpoint; ``base_url`` may list several
replicas, spread by :mod:`scicon.backbones.endpoints`. The requests of a batch (the
candidates of one generation of one pair) are queued together, sorted, so those
sharing a prefix (instructions + sentence1) reach the server together and its prefix
cache (vLLM's automatic prefix caching, SGLang's radix cache) computes the prefix once.
Each request is retried on timeouts, connection errors, HTTP 429/5xx and malformed
replies, on another endpoint where there is one.

Scoring asks for one token with ``top_logprobs`` and adds up the yes and no tokens
among them; it never samples an answer. When neither is among the top-k the mass is
reported as 0 (the score itself stays 0.5: the consumer decides what a low mass means).
A completion that stopped at ``max_tokens`` (``finish_reason == "length"``) is marked
truncated. Prompt and generated tokens are counted from each reply's ``usage``.

The cache key holds the served model's name, ``revision``, ``api`` and ``top_logprobs``,
never the endpoint. At start the backend reads ``/models`` from each endpoint, records
the stable part of what the server says about the model (its root path, owner, context
length) in the call cache and warns when it differs from what was recorded under the
same name: new weights served under an old name would otherwise reuse old answers.

The API key is read from the environment variable named in params and is sent only
in the Authorization header — it is not logged, put in error messages or written anywhere.
With ``api: chat`` the server applies the model's chat template to the prompt;
``api: completions`` sends the prompt as raw text (for base models).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import httpx

from scicon.backbones import BACKENDS
from scicon.backbones.base import (
    BackboneError,
    Completion,
    GenerationRequest,
    TokenCounter,
    YesNo,
    prompt_order,
    yes_no_from_logprobs,
)
from scicon.backbones.cache import CallCache
from scicon.backbones.endpoints import EndpointPool, Outcome
from scicon.backbones.params import BackboneParams, OpenAISettings
from scicon.errors import ParamsError

log = logging.getLogger(__name__)

_RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}
# what /models says about a model that does not change between requests (vLLM's "created"
# and "permission" do)
_STABLE_MODEL_FIELDS = ("id", "root", "parent", "owned_by", "max_model_len", "meta")
_MODELS_TIMEOUT_SECONDS = 10.0


class _Retryable(Exception):
    pass


@BACKENDS.register(
    "openai",
    settings=OpenAISettings,
    description="any OpenAI-compatible server: vLLM, SGLang, llama.cpp server, TGI (one URL or replicas)",
)
def build_openai(
    params: BackboneParams, settings: OpenAISettings, digests: CallCache | None
) -> OpenAICompatibleBackend:
    if not settings.endpoints:
        raise ParamsError(
            "backbone.openai.base_url: backend 'openai' needs a URL (e.g. http://localhost:8000/v1)"
        )
    backend = OpenAICompatibleBackend(
        settings.endpoints,
        params.model,
        api=settings.api,
        api_key_env=settings.api_key_env,
        revision=params.revision,
        max_concurrency=settings.max_concurrency,
        timeout_seconds=settings.timeout_seconds,
        max_retries=settings.max_retries,
        top_logprobs=settings.top_logprobs,
    )
    if digests is not None:
        backend.check_served_model(digests)
    return backend


class OpenAICompatibleBackend:
    name = "openai"

    def __init__(
        self,
        base_url: str | Sequence[str],
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
        urls = [base_url] if isinstance(base_url, str) else list(base_url)
        if not urls or not all(urls):
            raise BackboneError(
                "backend 'openai' needs backbone.openai.base_url (e.g. http://localhost:8000/v1)"
            )
        self.model = model
        self.api = api
        self._revision = revision
        self._max_retries = max_retries
        self._top_logprobs = top_logprobs
        headers = {}
        key = os.environ.get(api_key_env) if api_key_env else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._clients = {
            url.rstrip("/"): httpx.Client(
                base_url=url.rstrip("/"),
                headers=headers,
                timeout=timeout_seconds,
                limits=httpx.Limits(
                    max_connections=max_concurrency, max_keepalive_connections=max_concurrency
                ),
            )
            for url in urls
        }
        self.endpoints = EndpointPool(list(self._clients), max_concurrency)
        # one thread per slot: a request holds its thread while it waits for the server
        self._pool = ThreadPoolExecutor(max_workers=self.endpoints.capacity, thread_name_prefix="scicon-http")
        self._submit_lock = threading.Lock()
        self._unstarted = 0  # submitted, waiting for a thread (all slots taken)
        self._queued = 0
        self._tokens = TokenCounter()

    def identity(self) -> dict:
        # Every setting that changes an answer, and nothing about where the model runs:
        # the same model behind another replica gives the same answers. `revision` is the
        # user's handle to invalidate; check_served_model warns when it should have been.
        return {
            "backend": self.name,
            "model": self.model,
            "revision": self._revision,
            "api": self.api,
            "top_logprobs": self._top_logprobs,
        }

    def check_served_model(self, store: CallCache) -> dict | None:
        """Record what the servers report about the model; warn when it changed under the same name."""
        reports = {}
        for url, client in self._clients.items():
            try:
                listed = client.get("/models", timeout=_MODELS_TIMEOUT_SECONDS).json()["data"]
            except (httpx.HTTPError, json.JSONDecodeError, KeyError, TypeError) as error:
                log.warning("%s/models: cannot read the served model (%s)", url, type(error).__name__)
                continue
            entry = next((item for item in listed if item.get("id") == self.model), None)
            if entry is None:
                log.warning("%s serves no model named %r (it lists %s)", url, self.model,
                            [item.get("id") for item in listed])  # fmt: skip
                continue
            reports[url] = {name: entry[name] for name in _STABLE_MODEL_FIELDS if name in entry}
        if not reports:
            return None
        distinct = {json.dumps(report, sort_keys=True) for report in reports.values()}
        if len(distinct) > 1:
            log.warning("the endpoints disagree about model %r: %s", self.model, reports)
        description = next(iter(reports.values()))
        identity = hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()
        previous = store.swap_served_model(identity, description)
        if previous is not None and previous != description:
            log.warning(
                "the server now reports model %r as %s, where earlier runs saw %s; cached answers under "
                "this name came from the earlier model: set backbone.revision to a new value to stop "
                "reusing them",
                self.model,
                description,
                previous,
            )
        return description

    def _body(self, prompt: str, **settings) -> tuple[str, dict]:
        if self.api == "chat":
            return "/chat/completions", {
                "model": self.model,
                "messages": [{"role": "user", "content": prompt}],
                **settings,
            }
        return "/completions", {"model": self.model, "prompt": prompt, **settings}

    def _run_batch(self, prompts: Sequence[str], one: Callable[[int], object]) -> list:
        """``one(i)`` for every prompt index, concurrently, queued together in prompt order."""

        def started(index: int):
            with self._submit_lock:
                self._unstarted -= 1
            return one(index)

        with self._submit_lock:
            futures = {}
            for index in prompt_order(prompts):
                # every slot taken or others already queued: this request waits its turn
                self._queued += self._unstarted + self.endpoints.in_flight >= self.endpoints.capacity
                self._unstarted += 1
                futures[index] = self._pool.submit(started, index)
        return [futures[index].result() for index in range(len(prompts))]

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        def one(index: int) -> Completion:
            request = requests[index]
            sampling = request.sampling
            path, body = self._body(
                request.prompt,
                max_tokens=sampling.max_tokens,
                temperature=sampling.temperature,
                top_p=sampling.top_p,
                seed=request.seed,
                n=1,
            )
            return self._post(path, body, self._read_completion)

        return self._run_batch([r.prompt for r in requests], one)

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

        def one(index: int) -> YesNo:
            path, body = self._body(prompts[index], **settings)
            return self._post(path, body, self._read_yes_no)

        return self._run_batch(prompts, one)

    def log_likelihood(self, texts: Sequence[str]) -> list[float]:
        # Chat endpoints return log-probabilities of generated tokens only, and servers
        # disagree on how a completions endpoint echoes the prompt's; the fluency
        # constraint names its own model, which runs in-process.
        raise BackboneError(
            "the openai backend scores no text log-likelihoods: give the fluency constraint an "
            "in-process model (candidates.fluency.language_model.backend: llama_cpp or transformers)"
        )

    def _read_completion(self, data: dict) -> Completion:
        choice = data["choices"][0]
        text = choice["message"]["content"] if self.api == "chat" else choice["text"]
        if not isinstance(text, str):
            raise TypeError(f"completion text is {type(text).__name__}")
        self._count_tokens("generate", data)
        return Completion(text, truncated=choice.get("finish_reason") == "length")

    def _read_yes_no(self, data: dict) -> YesNo:
        answer = yes_no_from_logprobs(_top_logprobs(data, self.api))
        self._count_tokens("yes_no", data)
        return answer

    def _count_tokens(self, operation: str, data: dict) -> None:
        usage = data.get("usage") or {}
        self._tokens.add(
            operation, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        )

    def _post(self, path: str, body: dict, read: Callable[[dict], object]):
        failed_at, error = None, None
        for attempt in range(1, self._max_retries + 2):
            endpoint = self.endpoints.acquire(avoid=failed_at)
            outcome = Outcome.FAILED
            try:
                try:
                    response = self._clients[endpoint.url].post(path, json=body)
                except httpx.TransportError as transport:  # timeouts, refused or dropped connections
                    raise _Retryable(f"{type(transport).__name__}: {transport}") from transport
                if response.status_code in _RETRY_STATUS:
                    raise _Retryable(f"HTTP {response.status_code}")
                if response.status_code >= 400:
                    outcome = Outcome.REJECTED
                    raise BackboneError(
                        f"{endpoint.url}{path}: HTTP {response.status_code}: {response.text[:300]}"
                        + _hint(response.text)
                    )
                try:
                    answer = read(response.json())
                except (json.JSONDecodeError, KeyError, IndexError, TypeError) as malformed:
                    raise _Retryable(
                        f"malformed reply ({type(malformed).__name__}: {malformed})"
                    ) from malformed
                except BackboneError:  # a well-formed reply that cannot serve (no logprobs)
                    outcome = Outcome.REJECTED
                    raise
                outcome = Outcome.ANSWERED
                return answer
            except _Retryable as retryable:
                error, failed_at = retryable, endpoint.url
                if attempt <= self._max_retries:
                    log.warning("%s%s: %s; attempt %d of %d", endpoint.url, path, retryable, attempt,
                                self._max_retries + 1)  # fmt: skip
            finally:
                self.endpoints.release(endpoint, outcome)
        raise BackboneError(f"{failed_at}{path}: failed after {self._max_retries + 1} attempts: {error}")

    @property
    def in_flight(self) -> int:
        return self.endpoints.in_flight

    def counters(self) -> dict:
        counters = self.endpoints.counters()
        counters["requests_waited_for_a_slot"] += self._queued
        counters["tokens"] = self._tokens.as_metrics()
        return counters

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        for client in self._clients.values():
            client.close()
        counters = self.counters()
        attempts = sum(e["attempts"] for e in counters["endpoints"].values())
        if (
            attempts >= 10 * self.endpoints.capacity
            and counters["requests_waited_for_a_slot"] == 0
            and counters["requests_mean_in_flight"] < 0.5 * self.endpoints.capacity
        ):
            log.info(
                "the servers had %.1f requests in flight on average of %d allowed and none ever waited: "
                "search more pairs at once (evolve.workers) to use them",
                counters["requests_mean_in_flight"],
                self.endpoints.capacity,
            )


def _hint(body: str) -> str:
    if "logprobs" in body.lower():
        return (
            " (yes/no scoring asks for backbone.openai.top_logprobs next-token candidates; vLLM allows "
            "20 unless started with --max-logprobs N)"
        )
    return ""


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
