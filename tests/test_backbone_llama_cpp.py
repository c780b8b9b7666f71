"""The llama.cpp backend on the embedded SmolLM2-135M-Instruct GGUF (real model, CPU)."""

from __future__ import annotations

import pytest

from scicon.backbones import CachedBackbone, CallCache, Sampling
from scicon.backbones.base import GenerationRequest
from scicon.backbones.llama_cpp_backend import LlamaCppBackend
from scicon.models import resolve_model
from scicon.prompts import CLASSIFICATION, WORD_REPLACEMENT

pytestmark = pytest.mark.slow

SENTENCE1 = "Major bleeding occurred in 4% of velanoxet patients and 9% of warfarin patients."
CANDIDATES = [
    "Velanoxet reduced major bleeding compared with warfarin.",
    "Velanoxet increased major bleeding compared with warfarin.",
    "Velanoxet did not reduce major bleeding compared with warfarin.",
]
QUESTIONS = [CLASSIFICATION.format(sentence1=SENTENCE1, sentence2=c) for c in CANDIDATES]
REWRITE = WORD_REPLACEMENT.format(target_label="contradictory", sentence1=SENTENCE1, sentence2=CANDIDATES[0])


@pytest.fixture(scope="module")
def model_path() -> str:
    return resolve_model("embedded:smollm2-135m-instruct")


@pytest.fixture(scope="module")
def backend(model_path):
    llama = LlamaCppBackend(model_path, context_length=1024)
    yield llama
    llama.close()


def test_scores_are_probabilities_from_the_yes_and_no_tokens(backend):
    answers = backend.yes_no(QUESTIONS)
    for answer in answers:
        assert 0.0 <= answer.p_yes <= 1.0
        assert 0.0 < answer.mass <= 1.0
    assert len(backend._yes_ids) >= 2 and len(backend._no_ids) >= 2  # " Yes", "yes", ...


def test_reusing_shared_prefixes_gives_the_scores_of_separate_evaluation(backend):
    together = backend.yes_no(QUESTIONS)
    separately = [backend.yes_no([question])[0] for question in reversed(QUESTIONS)][::-1]
    for joint, alone in zip(together, separately, strict=True):
        assert joint.p_yes == pytest.approx(alone.p_yes, abs=1e-6)
        assert joint.mass == pytest.approx(alone.mass, abs=1e-6)


def test_log_likelihoods_reusing_shared_prefixes_equal_separate_evaluation(backend):
    original = "Velanoxet reduced major bleeding compared with warfarin in older adults."
    texts = [
        original,
        "Velanoxet did not reduce major bleeding compared with warfarin in older adults.",
        "Velanoxet reduced major bleeding compared with warfarin in younger adults.",
        "Warfarin reduced major bleeding compared with velanoxet in older adults.",
    ]
    together = backend.log_likelihood(texts)
    separately = [backend.log_likelihood([text])[0] for text in reversed(texts)][::-1]
    assert together == pytest.approx(separately, abs=1e-3)
    assert all(value < 0 for value in together)


def test_the_chat_template_wraps_the_prompt(backend):
    text = backend._llm.detokenize(backend.tokens("Hello?"), special=True).decode()
    assert "<|im_start|>user\nHello?<|im_end|>" in text
    assert text.endswith("<|im_start|>assistant\n")


def test_generation_depends_only_on_the_seed(model_path, backend):
    sampling = Sampling(temperature=0.9, max_tokens=24)
    requests = [GenerationRequest(REWRITE, sampling, seed) for seed in (11, 12, 13)]
    first = backend.generate(requests)
    fresh = LlamaCppBackend(model_path, context_length=1024)
    try:
        assert fresh.generate(requests) == first
        # a request gets the same text alone as in a batch
        assert fresh.generate([requests[1]]) == [first[1]]
    finally:
        fresh.close()
    assert len(set(first)) > 1
    greedy = Sampling(temperature=0.0, max_tokens=24)
    assert len(set(backend.generate([GenerationRequest(REWRITE, greedy, s) for s in (1, 2)]))) == 1


def test_a_completion_cut_by_the_token_limit_says_so(backend):
    (cut,) = backend.generate([GenerationRequest(REWRITE, Sampling(temperature=0.0, max_tokens=2), 1)])
    (whole,) = backend.generate(
        [GenerationRequest("What is 2+2? Answer with a number only.", Sampling(0.0, 64), 1)]
    )
    assert cut.truncated and cut.text
    assert not whole.truncated
    assert backend.counters()["tokens"]["generate"]["completion_tokens"] >= 2


def test_a_second_run_is_served_from_the_cache_with_identical_outputs(tmp_path, backend):
    path = tmp_path / "calls.sqlite"
    sampling = Sampling(temperature=0.9, max_tokens=16)
    first = CachedBackbone(backend, CallCache(path))
    texts = first.generate([REWRITE], [3], n=2, sampling=sampling)
    scores = first.yes_no(QUESTIONS)
    again = CachedBackbone(backend, CallCache(path))
    assert again.generate([REWRITE], [3], n=2, sampling=sampling) == texts
    assert again.yes_no(QUESTIONS) == scores
    assert again.stats.as_metrics()["calls_computed"] == 0
    assert len(backend.identity()["model_sha256"]) == 64  # the weights are hashed, not named


def test_prompts_longer_than_the_context_are_cut_not_fatal(model_path, caplog):
    small = LlamaCppBackend(model_path, context_length=128)
    try:
        long_question = CLASSIFICATION.format(sentence1=" ".join([SENTENCE1] * 20), sentence2=CANDIDATES[1])
        (answer,) = small.yes_no([long_question])
        assert 0.0 <= answer.p_yes <= 1.0
        assert "cut to the context" in caplog.text
    finally:
        small.close()
