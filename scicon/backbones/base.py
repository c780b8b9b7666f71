"""The one interface every foundation-model backend implements.

Three operations: sample completions (word replacement, result extraction, conclusion
generation); score P("yes") against P("no") for a question prompt (contradiction, same
topic, is-a-claim); and the log-likelihood of a plain text (how readable a rewrite is,
the fluency constraint). Scoring never generates: yes/no reads the next-token
distribution after the prompt in one forward pass and normalises the probability of
every "yes" token (any casing, with or without a leading space) against every "no"
token; a log-likelihood is one forward pass over the text.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from scicon.errors import SciconError

log = logging.getLogger(__name__)


class BackboneError(SciconError, RuntimeError):
    """A model call failed after its retries (unreachable server, malformed reply, ...)."""


@dataclass(frozen=True)
class Sampling:
    """How to sample one completion. ``temperature == 0`` is greedy decoding."""

    temperature: float
    max_tokens: int
    top_p: float = 0.95

    def as_key(self) -> dict:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, "top_p": self.top_p}


@dataclass(frozen=True)
class GenerationRequest:
    prompt: str
    sampling: Sampling
    seed: int


@dataclass(frozen=True)
class Completion:
    """One sampled completion. ``truncated``: the model stopped at ``max_tokens``, not at an
    end token (HTTP ``finish_reason == "length"``), so the text is cut off mid-answer."""

    text: str
    truncated: bool


@dataclass(frozen=True)
class YesNo:
    """P(yes) normalised over the yes and no tokens, and how much probability those held.

    A small ``mass`` means the model did not treat the prompt as a yes/no question;
    stages report it so that a weak backbone is visible rather than silently noisy.
    Every backend reports it as measured: over HTTP it is the mass among the returned
    top-k tokens, 0 when neither answer is among them.
    """

    p_yes: float
    mass: float


class Backend(Protocol):
    """An uncached model. :class:`scicon.backbones.cache.CachedBackbone` wraps one."""

    name: str

    def identity(self) -> dict:
        """What determines this backend's outputs (model digest, template, ...), JSON-able."""

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        """One completion per request, deterministic for a given request."""

    def yes_no(self, prompts: Sequence[str]) -> list[YesNo]:
        """One forward pass per prompt; no text is generated."""

    def log_likelihood(self, texts: Sequence[str]) -> list[float]:
        """Sum of the log-probabilities (nats) of each text's tokens after the beginning of
        sequence, the text as written (no chat template): one forward pass per text."""

    def counters(self) -> dict:
        """What this backend did, for the stage metrics (tokens; endpoints of a server)."""

    def close(self) -> None:
        """Release model memory, connections or worker threads."""


class TokenCounter:
    """Prompt and generated tokens per operation, for cost projections (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[tuple[str, str]] = Counter()

    def add(self, operation: str, prompt: int, completion: int) -> None:
        with self._lock:
            self._counts[(operation, "prompt_tokens")] += prompt
            self._counts[(operation, "completion_tokens")] += completion

    def as_metrics(self) -> dict:
        with self._lock:
            metrics: dict[str, dict[str, int]] = {}
            for (operation, name), count in sorted(self._counts.items()):
                metrics.setdefault(operation, {})[name] = count
        return metrics


def is_yes_no_token(text: str) -> str | None:
    """'yes' or 'no' when a token's text is that word (any case, surrounding spaces); else None."""
    word = text.strip().lower()
    return word if word in ("yes", "no") else None


def yes_no_from_logprobs(logprobs: Iterable[tuple[str, float]]) -> YesNo:
    """Combine (token text, log-probability) pairs of the next token into :class:`YesNo`."""
    totals = {"yes": 0.0, "no": 0.0}
    for text, logprob in logprobs:
        word = is_yes_no_token(text)
        if word is not None:
            totals[word] += math.exp(logprob)
    return normalise(totals["yes"], totals["no"])


def normalise(p_yes: float, p_no: float) -> YesNo:
    mass = p_yes + p_no
    # With no probability on either answer the model expressed no preference.
    return YesNo(p_yes=p_yes / mass if mass > 0 else 0.5, mass=mass)


def token_log_probabilities(logits, next_tokens: Sequence[int]):
    """log P(next_tokens[i]) under row ``i`` of ``logits`` (positions × vocabulary), in nats."""
    import numpy as np

    logits = np.asarray(logits, dtype=np.float64)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_norm = np.log(np.exp(shifted).sum(axis=1))
    return shifted[np.arange(len(next_tokens)), np.asarray(next_tokens)] - log_norm


def fit_to_context(tokens: list[int], room: int) -> list[int]:
    """Cut an over-long prompt in the middle.

    Every EvoNLI prompt starts with its instructions and ends with the question, so
    the middle (a long abstract) is what can go.
    """
    if len(tokens) <= room:
        return tokens
    head = room // 4
    log.warning("prompt of %d tokens cut to the context's %d (middle removed)", len(tokens), room)
    return tokens[:head] + tokens[len(tokens) - (room - head) :]


def prompt_order(prompts: Sequence[str]) -> list[int]:
    """Indices that put prompts with shared prefixes next to each other.

    Backends that keep the previous prompt's state (llama.cpp's KV cache) then
    evaluate only the part after the shared prefix.
    """
    return sorted(range(len(prompts)), key=lambda i: prompts[i])
