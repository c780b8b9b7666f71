"""The non-LLM word replacements of the paper's section 6.3 ablations."""

from __future__ import annotations

import pytest

from scicon.models import resolve_model
from scicon.transformations.base import MutationRequest
from scicon.transformations.masked_lm import MaskedLmReplacement
from scicon.transformations.random_words import RandomWordReplacement, corpus_vocabulary

SENTENCE = "Velanoxet reduced major bleeding compared with warfarin."


def request(sentence: str = SENTENCE, seed: int = 4, count: int = 5) -> MutationRequest:
    return MutationRequest(sentence1="x", sentence2=sentence, original=sentence, seed=seed, count=count)


def test_corpus_vocabulary_keeps_content_words_once_and_sorted():
    assert corpus_vocabulary(["The drug lowered blood pressure.", "Blood tests were normal in all."]) == [
        "blood", "drug", "lowered", "normal", "pressure", "tests",
    ]  # fmt: skip


def test_random_replacement_swaps_one_or_two_content_words_deterministically():
    vocabulary = ["insulin", "cough", "fever"]
    transformation = RandomWordReplacement(vocabulary, max_words=2)
    first = transformation.propose([request()])[0]
    assert first == transformation.propose([request()])[0]
    assert first != transformation.propose([request(seed=5)])[0]
    for text in first:
        assert text is not None and text != SENTENCE
        original, changed = SENTENCE.rstrip(".").split(), text.rstrip(".").split()
        assert len(changed) == len(original)
        swapped = [new for old, new in zip(original, changed, strict=True) if old != new]
        assert 1 <= len(swapped) <= 2 and set(swapped) <= set(vocabulary)
        assert "with" in changed  # stop words are never replaced


def test_random_replacement_fails_where_there_is_no_content_word():
    assert RandomWordReplacement(["insulin"], max_words=2).propose([request("It was so.", count=2)]) == [
        [None, None]
    ]
    with pytest.raises(ValueError, match="non-empty vocabulary"):
        RandomWordReplacement([], max_words=2)


@pytest.fixture(scope="module")
def tiny_fill_mask_model(tmp_path_factory):
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    folder = tmp_path_factory.mktemp("tiny-bert-mlm")
    tokenizer = AutoTokenizer.from_pretrained(resolve_model("embedded:all-minilm-l6-v2"))
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
    )
    BertForMaskedLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def test_masked_lm_replaces_one_word_with_a_whole_word_prediction(tiny_fill_mask_model):
    transformation = MaskedLmReplacement(tiny_fill_mask_model, top_k=5)
    proposals = transformation.propose([request(count=3)])[0]
    assert proposals == transformation.propose([request(count=3)])[0]
    for text in proposals:
        if text is None:  # the random model predicted only sub-words or punctuation
            continue
        original, changed = SENTENCE.split(), text.split()
        assert len(changed) == len(original)
        differing = [(a, b) for a, b in zip(original, changed, strict=True) if a != b]
        assert len(differing) == 1 and differing[0][1].rstrip(".").isalpha()
    assert any(text is not None for text in proposals)
