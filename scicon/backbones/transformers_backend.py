"""Hugging Face causal language models (a local folder, a hub id, or a GGUF file).

Scoring runs prompts through the model in padded batches and reads the logits of
the last position. Sampling is a plain batched decoding loop with one seeded
random generator per request, so a request's sample does not depend on which
other requests share its batch.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from scicon.backbones import BACKENDS
from scicon.backbones.base import (
    Completion,
    GenerationRequest,
    Sampling,
    TokenCounter,
    YesNo,
    fit_to_context,
    is_yes_no_token,
    normalise,
    token_log_probabilities,
)
from scicon.backbones.cache import CallCache, weights_identity
from scicon.backbones.params import BackboneParams, TransformersSettings
from scicon.models import resolve_model
from scicon.threads import COMPUTE_LOCK


@BACKENDS.register(
    "transformers",
    settings=TransformersSettings,
    description="Hugging Face causal language models in-process (a folder, a hub id or a GGUF file)",
)
def build_transformers(
    params: BackboneParams, settings: TransformersSettings, digests: CallCache | None
) -> TransformersBackend:
    model, gguf_file = resolve_model(params.model), None
    if model.endswith(".gguf") and Path(model).is_file():
        model, gguf_file = str(Path(model).parent), Path(model).name
    return TransformersBackend(
        model,
        gguf_file=gguf_file,
        revision=params.revision,
        chat_template=params.chat_template,
        context_length=params.context_length,
        batch_size=settings.batch_size,
        device=settings.device,
        dtype=settings.dtype,
        digests=digests,
    )


class TransformersBackend:
    name = "transformers"

    def __init__(
        self,
        model: str,
        *,
        gguf_file: str | None = None,
        revision: str | None = None,
        chat_template: str = "auto",
        context_length: int = 2048,
        batch_size: int = 8,
        device: str = "auto",
        dtype: str = "auto",
        digests: CallCache | None = None,
    ):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self._torch = torch
        self.device = ("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else device
        if dtype == "auto":
            torch_dtype = torch.bfloat16 if self.device.startswith("cuda") else torch.float32
        else:
            torch_dtype = getattr(torch, dtype)
        options = {"revision": revision}
        if gguf_file:
            options["gguf_file"] = gguf_file
        self.tokenizer = AutoTokenizer.from_pretrained(model, **options)
        self.model = AutoModelForCausalLM.from_pretrained(model, dtype=torch_dtype, **options)
        self.model.to(self.device).eval()
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self._use_template = chat_template == "auto" and bool(self.tokenizer.chat_template)
        self._eos_ids = self._end_token_ids()
        self._yes_ids, self._no_ids = self._yes_no_token_ids()
        self._batch_size = batch_size
        self._context_length = context_length
        self._lock = threading.Lock()
        self._tokens = TokenCounter()
        self._identity = {
            "backend": self.name,
            "model": weights_identity(model, digests, gguf_file=gguf_file, revision=revision),
            "chat_template": self.tokenizer.chat_template if self._use_template else None,
            "dtype": str(torch_dtype),
        }

    def identity(self) -> dict:
        return self._identity

    def _end_token_ids(self) -> set[int]:
        ends = {self.tokenizer.eos_token_id}
        configured = getattr(self.model.generation_config, "eos_token_id", None)
        ends.update(configured if isinstance(configured, list) else [configured])
        return {token for token in ends if token is not None}

    def _yes_no_token_ids(self) -> tuple[list[int], list[int]]:
        found: dict[str, list[int]] = {"yes": [], "no": []}
        for token in range(len(self.tokenizer)):
            word = is_yes_no_token(self.tokenizer.decode([token]))
            if word is not None:
                found[word].append(token)
        return found["yes"], found["no"]

    def token_ids(self, prompt: str) -> list[int]:
        if self._use_template:
            text = self.tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
            )
            return self.tokenizer(text, add_special_tokens=False)["input_ids"]
        return self.tokenizer(prompt, add_special_tokens=True)["input_ids"]

    def _padded(self, sequences: list[list[int]]):
        torch = self._torch
        width = max(len(s) for s in sequences)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.tensor([[pad] * (width - len(s)) + s for s in sequences], device=self.device)
        mask = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in sequences], device=self.device)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        return input_ids, mask, positions

    def _forward_batches(self, sequences: list[list[int]], operation: str):
        """Each batch of ``sequences`` through the model, shortest first (batches of similar
        length waste little on padding): its row indices, logits and padded width. The
        caller holds the lock and inference mode."""
        order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]))
        for start in range(0, len(order), self._batch_size):
            rows = order[start : start + self._batch_size]
            input_ids, mask, positions = self._padded([sequences[i] for i in rows])
            self._tokens.add(operation, sum(len(sequences[i]) for i in rows), 0)
            logits = self.model(input_ids=input_ids, attention_mask=mask, position_ids=positions).logits
            yield rows, logits, input_ids.shape[1]

    def yes_no(self, prompts: Sequence[str]) -> list[YesNo]:
        torch = self._torch
        sequences = [fit_to_context(self.token_ids(p), self._context_length) for p in prompts]
        answers: list[YesNo | None] = [None] * len(prompts)
        with self._lock, COMPUTE_LOCK, torch.inference_mode():
            for rows, logits, _ in self._forward_batches(sequences, "yes_no"):
                probabilities = torch.softmax(logits[:, -1, :].float(), dim=-1).cpu()
                for row, index in enumerate(rows):
                    answers[index] = normalise(
                        float(probabilities[row, self._yes_ids].sum()),
                        float(probabilities[row, self._no_ids].sum()),
                    )
        return answers  # type: ignore[return-value]

    def log_likelihood(self, texts: Sequence[str]) -> list[float]:
        torch = self._torch
        sequences = [
            self.tokenizer(text, add_special_tokens=True)["input_ids"][: self._context_length]
            for text in texts
        ]
        totals: list[float | None] = [None] * len(texts)
        with self._lock, COMPUTE_LOCK, torch.inference_mode():
            for rows, logits, width in self._forward_batches(sequences, "log_likelihood"):
                for row, index in enumerate(rows):
                    length = len(sequences[index])
                    # left padding: the text occupies the last `length` positions
                    own = logits[row, width - length : width - 1].float().cpu().numpy()
                    totals[index] = float(token_log_probabilities(own, sequences[index][1:]).sum())
        return totals  # type: ignore[return-value]

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        outputs: list[Completion | None] = [None] * len(requests)
        order = sorted(range(len(requests)), key=lambda i: len(requests[i].prompt))
        with self._lock, COMPUTE_LOCK, self._torch.inference_mode():
            for start in range(0, len(order), self._batch_size):
                rows = order[start : start + self._batch_size]
                for index, completion in zip(
                    rows, self._sample_batch([requests[i] for i in rows]), strict=True
                ):
                    outputs[index] = completion
        return outputs  # type: ignore[return-value]

    def _sample_batch(self, requests: list[GenerationRequest]) -> list[Completion]:
        torch = self._torch
        sequences = [
            fit_to_context(self.token_ids(r.prompt), self._context_length - r.sampling.max_tokens)
            for r in requests
        ]
        input_ids, mask, positions = self._padded(sequences)
        generators = [torch.Generator().manual_seed(r.seed) for r in requests]
        produced: list[list[int]] = [[] for _ in requests]
        finished = [False] * len(requests)
        ended = [False] * len(requests)  # stopped by an end token, not by max_tokens
        past = None
        for _ in range(max(r.sampling.max_tokens for r in requests)):
            output = self.model(
                input_ids=input_ids,
                attention_mask=mask,
                position_ids=positions,
                past_key_values=past,
                use_cache=True,
            )
            past = output.past_key_values
            logits = output.logits[:, -1, :].float().cpu()
            next_tokens = []
            for row, request in enumerate(requests):
                token = self.tokenizer.pad_token_id
                if not finished[row]:
                    token = _sample(logits[row], request.sampling, generators[row])
                    if token in self._eos_ids:
                        finished[row] = ended[row] = True
                    else:
                        produced[row].append(token)
                        finished[row] = len(produced[row]) >= request.sampling.max_tokens
                next_tokens.append(token)
            if all(finished):
                break
            input_ids = torch.tensor(next_tokens, device=self.device)[:, None]
            mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=-1)
            positions = positions[:, -1:] + 1
        self._tokens.add("generate", sum(map(len, sequences)), sum(map(len, produced)))
        return [
            Completion(self.tokenizer.decode(tokens, skip_special_tokens=True), truncated=not end)
            for tokens, end in zip(produced, ended, strict=True)
        ]

    def counters(self) -> dict:
        return {"tokens": self._tokens.as_metrics()}

    def close(self) -> None:
        with self._lock:
            del self.model


def _sample(logits, sampling: Sampling, generator) -> int:
    import torch

    if sampling.temperature <= 0:
        return int(torch.argmax(logits))
    probabilities = torch.softmax(logits / sampling.temperature, dim=-1)
    if sampling.top_p < 1.0:
        ordered, indices = torch.sort(probabilities, descending=True)
        # keep the smallest set of tokens whose probability reaches top_p
        keep = ordered.cumsum(0) - ordered < sampling.top_p
        probabilities = torch.zeros_like(probabilities).scatter(0, indices[keep], ordered[keep])
    return int(torch.multinomial(probabilities, 1, generator=generator))
