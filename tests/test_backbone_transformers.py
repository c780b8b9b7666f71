"""The transformers backend on a tiny random-weight Llama built here (no download)."""

from __future__ import annotations

import pytest

from scicon.backbones.base import GenerationRequest, Sampling
from scicon.backbones.transformers_backend import TransformersBackend
from scicon.models import resolve_model


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    folder = tmp_path_factory.mktemp("tiny-llama")
    # a real tokenizer from the embedded MiniLM package; the model itself is random
    tokenizer = AutoTokenizer.from_pretrained(resolve_model("embedded:all-minilm-l6-v2"))
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        pad_token_id=tokenizer.pad_token_id,
    )
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def backend(tiny_model_dir):
    model = TransformersBackend(str(tiny_model_dir), batch_size=3, context_length=256)
    yield model
    model.close()


PROMPTS = [
    "Is the sky blue? Answer:",
    "Did velanoxet reduce major bleeding compared with warfarin in older adults? Answer:",
    "Yes or no? Answer:",
    "Was the primary outcome met in the honey syrup trial for children with cough? Answer:",
]


def test_scores_in_a_padded_batch_equal_scores_alone(backend):
    together = backend.yes_no(PROMPTS)
    alone = [backend.yes_no([prompt])[0] for prompt in PROMPTS]
    for joint, single in zip(together, alone, strict=True):
        assert 0.0 <= joint.p_yes <= 1.0 and 0.0 < joint.mass < 1.0
        assert joint.p_yes == pytest.approx(single.p_yes, abs=1e-5)
        assert joint.mass == pytest.approx(single.mass, rel=1e-4)
    assert backend._yes_ids and backend._no_ids


def test_generation_is_seeded_per_request(backend, tiny_model_dir):
    sampling = Sampling(temperature=1.0, max_tokens=6)
    requests = [GenerationRequest(prompt, sampling, seed) for seed, prompt in enumerate(PROMPTS)]
    first = backend.generate(requests)
    again = TransformersBackend(str(tiny_model_dir), batch_size=3, context_length=256).generate(requests)
    assert first == again
    assert all(completion.text.strip() for completion in first)
    # random weights over a large vocabulary practically never sample the end token:
    # every completion runs into max_tokens and says so
    assert all(completion.truncated for completion in first)
    greedy = Sampling(temperature=0.0, max_tokens=6)
    batch = backend.generate([GenerationRequest(p, greedy, 0) for p in PROMPTS])
    assert batch == [backend.generate([GenerationRequest(p, greedy, 0)])[0] for p in PROMPTS]


def test_identity_hashes_the_local_weights(backend):
    identity = backend.identity()
    assert identity["backend"] == "transformers"
    assert len(identity["model"]["local_sha256"]) == 64
    assert identity["chat_template"] is None  # the BERT tokenizer has none: raw prompts
