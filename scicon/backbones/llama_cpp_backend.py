"""GGUF models through llama-cpp-python (the default: SmolLM2-135M-Instruct on a CPU).

Scoring evaluates the prompt and reads the logits of the last position only
(``logits_all`` stays off: with a 262k vocabulary it costs about 1 GiB). A text's
log-likelihood needs every position's logits, so it runs on a second, small-context
instance of the same weights, loaded on first use. Prompts
of a batch are evaluated in sorted order and each keeps the KV cache of the longest
prefix it shares with the previous one, so the instruction block and the fixed
sentence1 shared by all candidates of a generation are evaluated once.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from scicon.backbones import BACKENDS
from scicon.backbones.base import (
    Completion,
    GenerationRequest,
    TokenCounter,
    YesNo,
    fit_to_context,
    is_yes_no_token,
    normalise,
    prompt_order,
    token_log_probabilities,
)
from scicon.backbones.cache import CallCache
from scicon.backbones.params import BackboneParams, LlamaCppSettings
from scicon.io import hash_file
from scicon.models import resolve_model
from scicon.threads import COMPUTE_LOCK, thread_budget

# Tokens of one text scored for its log-likelihood (a sentence is far shorter); every
# position keeps vocabulary-sized logits, so this context stays small.
LIKELIHOOD_CONTEXT = 512


@BACKENDS.register(
    "llama_cpp", settings=LlamaCppSettings, description="GGUF models in-process through llama-cpp-python"
)
def build_llama_cpp(
    params: BackboneParams, settings: LlamaCppSettings, digests: CallCache | None
) -> LlamaCppBackend:
    return LlamaCppBackend(
        resolve_model(params.model),
        chat_template=params.chat_template,
        context_length=params.context_length,
        threads=settings.threads,
        digests=digests,
    )


class LlamaCppBackend:
    name = "llama_cpp"

    def __init__(
        self,
        model_path: str,
        *,
        chat_template: str = "auto",
        context_length: int = 2048,
        threads: int | None = None,
        digests: CallCache | None = None,
    ):
        from llama_cpp import Llama

        threads = threads or thread_budget()  # never llama.cpp's own count, which the host's CPUs set
        self.model_path = model_path
        self._llm = Llama(
            model_path=model_path,
            n_ctx=context_length,
            n_threads=threads,
            n_threads_batch=threads,
            # logits for the last position only: scoring reads nothing else, and keeping
            # every position's logits costs n_ctx × vocabulary floats (384 MiB here)
            logits_all=False,
            verbose=False,
        )
        self._lock = threading.Lock()
        self._template = self._chat_formatter() if chat_template == "auto" else None
        self._yes_ids, self._no_ids = self._yes_no_token_ids()
        self._model_sha256 = (
            digests.file_sha256(model_path) if digests is not None else hash_file(model_path)[0]
        )
        self._context_length = context_length
        self._threads = threads
        self._likelihood_llm = None
        self._tokens = TokenCounter()

    def identity(self) -> dict:
        return {
            "backend": self.name,
            "model_sha256": self._model_sha256,
            "chat_template": self._llm.metadata.get("tokenizer.chat_template") if self._template else None,
        }

    def _chat_formatter(self):
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        template = self._llm.metadata.get("tokenizer.chat_template")
        if not template:
            return None
        special = lambda token: self._llm.detokenize([token], special=True).decode("utf-8", "ignore")  # noqa: E731
        return Jinja2ChatFormatter(
            template=template,
            eos_token=special(self._llm.token_eos()),
            bos_token=special(self._llm.token_bos()),
            add_generation_prompt=True,
        )

    def _yes_no_token_ids(self) -> tuple[np.ndarray, np.ndarray]:
        found: dict[str, list[int]] = {"yes": [], "no": []}
        for token in range(self._llm.n_vocab()):
            word = is_yes_no_token(self._llm.detokenize([token]).decode("utf-8", "ignore"))
            if word is not None:
                found[word].append(token)
        return np.array(found["yes"], dtype=int), np.array(found["no"], dtype=int)

    def tokens(self, prompt: str) -> list[int]:
        if self._template is not None:
            text = self._template(messages=[{"role": "user", "content": prompt}]).prompt
            # the template writes the BOS token itself where the model wants one
            tokens = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        else:
            tokens = self._llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=False)
        return tokens

    @staticmethod
    def _evaluate_reusing_prefix(llm, tokens: list[int]) -> None:
        """Evaluate ``tokens`` keeping the KV cache (and, with ``logits_all``, the logits) of the
        prefix they share with what ``llm`` evaluated last."""
        shared = 0
        for old, new in zip(llm._input_ids, tokens, strict=False):
            if old != new:
                break
            shared += 1
        # at least the last token must be evaluated again to get its logits
        llm.n_tokens = min(shared, len(tokens) - 1)
        llm.eval(tokens[llm.n_tokens :])

    def yes_no(self, prompts: Sequence[str]) -> list[YesNo]:
        answers: list[YesNo | None] = [None] * len(prompts)
        with self._lock, COMPUTE_LOCK:
            for index in prompt_order(prompts):
                tokens = self._fit(self.tokens(prompts[index]), reserve=1)
                self._evaluate_reusing_prefix(self._llm, tokens)
                self._tokens.add("yes_no", len(tokens), 0)
                logits = np.ctypeslib.as_array(
                    self._llm._ctx.get_logits_ith(-1), shape=(self._llm.n_vocab(),)
                ).astype(np.float64)
                probabilities = np.exp(logits - logits.max())
                probabilities /= probabilities.sum()
                answers[index] = normalise(
                    float(probabilities[self._yes_ids].sum()), float(probabilities[self._no_ids].sum())
                )
        return answers  # type: ignore[return-value]

    def log_likelihood(self, texts: Sequence[str]) -> list[float]:
        """Each text's log-likelihood. Texts are evaluated in sorted order, each keeping the KV
        cache and logits of the prefix it shares with the one before: a rewrite and the sentence
        it was made from share every word before the edit, and those are evaluated once."""
        totals: list[float | None] = [None] * len(texts)
        with self._lock, COMPUTE_LOCK:
            llm = self._likelihood_model()
            llm.reset()
            for index in prompt_order(texts):
                tokens = llm.tokenize(texts[index].encode("utf-8"), add_bos=True, special=False)
                tokens = tokens[:LIKELIHOOD_CONTEXT]
                self._evaluate_reusing_prefix(llm, tokens)
                logits = np.asarray(llm.scores[: len(tokens) - 1], dtype=np.float64)
                totals[index] = float(token_log_probabilities(logits, tokens[1:]).sum())
                self._tokens.add("log_likelihood", len(tokens), 0)
        return totals  # type: ignore[return-value]

    def _likelihood_model(self):
        if self._likelihood_llm is None:
            from llama_cpp import Llama

            self._likelihood_llm = Llama(
                model_path=self.model_path,
                n_ctx=LIKELIHOOD_CONTEXT,
                n_threads=self._threads,
                n_threads_batch=self._threads,
                logits_all=True,
                verbose=False,
            )
        return self._likelihood_llm

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        outputs: list[Completion | None] = [None] * len(requests)
        with self._lock, COMPUTE_LOCK:
            for index in prompt_order([r.prompt for r in requests]):
                request = requests[index]
                sampling = request.sampling
                tokens = self._fit(self.tokens(request.prompt), reserve=sampling.max_tokens)
                # create_completion reuses the KV cache of the longest shared prefix itself
                completion = self._llm.create_completion(
                    prompt=tokens,
                    max_tokens=sampling.max_tokens,
                    temperature=sampling.temperature,
                    top_p=sampling.top_p,
                    seed=request.seed,
                )
                choice = completion["choices"][0]
                outputs[index] = Completion(choice["text"], truncated=choice["finish_reason"] == "length")
                usage = completion["usage"]
                self._tokens.add("generate", usage["prompt_tokens"], usage["completion_tokens"])
        return outputs  # type: ignore[return-value]

    def counters(self) -> dict:
        return {"tokens": self._tokens.as_metrics()}

    def _fit(self, tokens: list[int], reserve: int) -> list[int]:
        return fit_to_context(tokens, self._context_length - reserve)

    def close(self) -> None:
        with self._lock:
            self._llm.close()
            if self._likelihood_llm is not None:
                self._likelihood_llm.close()
