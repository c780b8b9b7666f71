"""A deterministic stand-in backend for tests of code above the backbone layer.

Answers come from functions of the prompt (and seed), so tests can script exactly
what a model would say; every call is counted. It lives in tests only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from scicon.backbones.base import Completion, GenerationRequest, YesNo


class ScriptedBackend:
    name = "scripted"

    def __init__(
        self,
        generate: Callable[[GenerationRequest], str | Completion] | None = None,
        yes: Callable[[str], float] | None = None,
        identity: str = "scripted-v1",
    ):
        self._generate = generate or (lambda request: f"echo {request.seed}")
        self._yes = yes or (lambda prompt: 0.5)
        self._identity = identity
        self.generate_calls: list[GenerationRequest] = []
        self.yes_no_calls: list[str] = []
        self.batches: list[int] = []

    def identity(self) -> dict:
        return {"backend": self.name, "model": self._identity}

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        """The scripted answer; a plain string is a completion that ended on its own."""
        self.batches.append(len(requests))
        self.generate_calls.extend(requests)
        answers = [self._generate(request) for request in requests]
        return [a if isinstance(a, Completion) else Completion(a, truncated=False) for a in answers]

    def yes_no(self, prompts: Sequence[str]) -> list[YesNo]:
        self.batches.append(len(prompts))
        self.yes_no_calls.extend(prompts)
        return [YesNo(p_yes=self._yes(prompt), mass=1.0) for prompt in prompts]

    def counters(self) -> dict:
        return {}

    def close(self) -> None:
        pass
