"""Benchmark of the llama.cpp backbone: how yes/no scoring and generation are batched.

Prints, in one run on this machine (so the ratios are meaningful even where
absolute times are noise):

* prompts scored per second by the one-forward-pass scorer (batched: prompts
  sorted, shared prefixes evaluated once), by the same scorer one prompt at a time
  (state reset between prompts), and by "scoring by generating a token" (the usual
  llama-cpp-python route: ``logits_all=True`` and ``create_completion(max_tokens=1,
  logprobs=20)``), with their ratios;
* candidate rewrites generated per second for N candidates per prompt, batched
  (prompt prefix kept between samples) against one at a time (reset each time).

The prompts are those of one EvoNLI generation: for each entailing pair of the
corpus, the classification prompt (E.3.4) for five candidate variants of sentence2.

    python -m perf.backbone_scoring [--corpus data/demo/demo_rct.txt] [--pairs 8]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from scicon.backbones.base import GenerationRequest, Sampling, yes_no_from_logprobs
from scicon.backbones.llama_cpp_backend import LlamaCppBackend
from scicon.corpus import ingest
from scicon.corpus.params import IngestParams
from scicon.models import resolve_model
from scicon.pairing import build_pairs, make_cheap_selector
from scicon.pairing.params import PairsParams
from scicon.prompts import CLASSIFICATION, TARGET_LABEL_WORDS, WORD_REPLACEMENT
from scicon.records.base import TargetLabel


def evolve_like_prompts(corpus: str, pairs: int, candidates: int) -> tuple[list[str], list[str]]:
    abstracts = ingest(IngestParams(source=corpus), cache_dir=Path("/tmp")).abstracts
    options = PairsParams(kinds=["result_conclusion"], max_result_pairs_per_abstract=1, min_words=6)
    chosen = build_pairs(abstracts, options, make_cheap_selector("tfidf")).pairs[:pairs]
    scoring, rewriting = [], []
    for pair in chosen:
        words = pair.sentence2.split()
        for k in range(candidates):
            # drop one word: five distinct candidates that share sentence1 and the instructions
            position = 1 + k * max(1, (len(words) - 2) // candidates)
            variant = " ".join(words[:position] + words[position + 1 :])
            scoring.append(CLASSIFICATION.format(sentence1=pair.sentence1, sentence2=variant))
        rewriting.append(
            WORD_REPLACEMENT.format(
                target_label=TARGET_LABEL_WORDS[TargetLabel.CONTRADICTION],
                sentence1=pair.sentence1,
                sentence2=pair.sentence2,
            )
        )
    return scoring, rewriting


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def timed(function) -> tuple[object, float]:
    started = time.perf_counter()
    result = function()
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="data/demo/demo_rct.txt")
    parser.add_argument("--model", default="embedded:smollm2-135m-instruct")
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--candidates", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    model = resolve_model(args.model)
    scoring, rewriting = evolve_like_prompts(args.corpus, args.pairs, args.candidates)
    backend = LlamaCppBackend(model, context_length=2048, threads=args.threads)
    backend.yes_no(scoring[:1])  # warm-up: first evaluation allocates buffers

    batched, t_batched = timed(lambda: backend.yes_no(scoring))

    def one_at_a_time():
        answers = []
        for prompt in scoring:
            backend._llm.reset()
            answers.extend(backend.yes_no([prompt]))
        return answers

    single, t_single = timed(one_at_a_time)

    from llama_cpp import Llama

    generating = Llama(model_path=model, n_ctx=2048, n_threads=args.threads, logits_all=True, verbose=False)
    logits_all_bytes = generating.scores.nbytes

    def by_generating_a_token():
        answers = []
        for prompt in sorted(scoring):
            completion = generating.create_completion(
                prompt=backend.tokens(prompt), max_tokens=1, temperature=0.0, logprobs=20
            )
            top = completion["choices"][0]["logprobs"]["top_logprobs"]
            answers.append(yes_no_from_logprobs(top[0].items() if top else []))
        return answers

    generated, t_generated = timed(by_generating_a_token)
    generating.close()

    sampling = Sampling(temperature=0.9, max_tokens=48)
    requests = [GenerationRequest(p, sampling, seed) for p in rewriting for seed in range(args.candidates)]
    _, t_gen_batched = timed(lambda: backend.generate(requests))

    def generate_one_at_a_time():
        for request in requests:
            backend._llm.reset()
            backend.generate([request])

    _, t_gen_single = timed(generate_one_at_a_time)
    backend.close()

    agreement = max(abs(a.p_yes - b.p_yes) for a, b in zip(batched, single, strict=True))
    figures = {
        "prompts_scored": len(scoring),
        "score_batched_prompts_per_s": round(rate(len(scoring), t_batched), 2),
        "score_one_at_a_time_prompts_per_s": round(rate(len(scoring), t_single), 2),
        "score_by_generating_prompts_per_s": round(rate(len(scoring), t_generated), 2),
        "ratio_one_pass_vs_generating": round(t_generated / t_batched, 2),
        "ratio_batched_vs_one_at_a_time": round(t_single / t_batched, 2),
        "max_p_yes_difference_batched_vs_single": agreement,
        "logits_all_extra_mib": round(logits_all_bytes / 2**20, 1),
        "candidates_generated": len(requests),
        "generate_batched_per_s": round(rate(len(requests), t_gen_batched), 2),
        "generate_one_at_a_time_per_s": round(rate(len(requests), t_gen_single), 2),
        "ratio_generate_batched_vs_one_at_a_time": round(t_gen_single / t_gen_batched, 2),
    }
    del generated
    width = max(map(len, figures))
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
