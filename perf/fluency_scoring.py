"""Benchmark of the fluency check's language model: log-likelihoods of rule rewrites, with and
without reusing the prefix a rewrite shares with the sentence before it.

The negatives stage and EvoNLI's fluency constraint score each candidate and the sentence it was
made from under the small language model (``candidates.fluency.language_model``). A rewrite shares
every word before its edit with its original, so evaluating the texts in sorted order and keeping the
KV cache of the shared prefix skips most of them. This script takes the first N sentence2s of a
negatives file (the stage's output) with their rewrites, scores them both ways in one run on this
machine, checks the two agree, and prints the tokens evaluated, the seconds and the ratio.

    python -m perf.fluency_scoring --negatives data/negatives/negatives.jsonl --texts 400
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from scicon.backbones.base import token_log_probabilities
from scicon.backbones.llama_cpp_backend import LIKELIHOOD_CONTEXT, LlamaCppBackend
from scicon.io import read_jsonl
from scicon.models import resolve_model
from scicon.records.negatives import RuleNegative


def texts_of(negatives: Path, count: int) -> list[str]:
    """Originals and their rewrites, as the stage sends them: distinct texts, at most ``count``."""
    texts: dict[str, None] = {}
    for negative in read_jsonl(negatives, RuleNegative):
        for text in (negative.premise, negative.hypothesis):
            texts.setdefault(text, None)
        if len(texts) >= count:
            break
    return list(texts)[:count]


def one_at_a_time(backend: LlamaCppBackend, texts: list[str]) -> tuple[list[float], int]:
    """Every text evaluated from scratch: the way the fluency check ran before prefix reuse."""
    llm = backend._likelihood_model()
    totals, tokens_evaluated = [], 0
    for text in texts:
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=True, special=False)[:LIKELIHOOD_CONTEXT]
        llm.reset()
        llm.eval(tokens)
        tokens_evaluated += len(tokens)
        logits = np.asarray(llm.scores[: len(tokens) - 1], dtype=np.float64)
        totals.append(float(token_log_probabilities(logits, tokens[1:]).sum()))
    return totals, tokens_evaluated


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m perf.fluency_scoring", description=__doc__)
    parser.add_argument("--negatives", required=True, help="a negatives stage output (negatives.jsonl)")
    parser.add_argument("--texts", type=int, default=400, help="distinct texts to score")
    parser.add_argument("--model", default="embedded:smollm2-135m-instruct", help="the language model (GGUF)")
    args = parser.parse_args()

    texts = texts_of(Path(args.negatives), args.texts)
    backend = LlamaCppBackend(resolve_model(args.model), context_length=512)
    backend.log_likelihood(texts[:2])  # load the weights before timing
    start = time.perf_counter()
    alone, tokens_alone = one_at_a_time(backend, texts)
    seconds_alone = time.perf_counter() - start
    backend._likelihood_model().reset()
    start = time.perf_counter()
    shared = backend.log_likelihood(texts)
    seconds_shared = time.perf_counter() - start
    difference = float(np.max(np.abs(np.array(alone) - np.array(shared))))
    print(f"texts: {len(texts)}; tokens per text: {tokens_alone / len(texts):.1f}")
    print(f"one at a time:     {seconds_alone:7.1f} s  ({len(texts) / seconds_alone:6.1f} texts/s)")
    print(f"reusing prefixes:  {seconds_shared:7.1f} s  ({len(texts) / seconds_shared:6.1f} texts/s)")
    print(f"speed-up: {seconds_alone / seconds_shared:.2f}x; largest difference {difference:.2e} nats")


if __name__ == "__main__":
    main()
