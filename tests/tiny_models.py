"""Tiny randomly initialised BERT models saved like hub models: fast, offline test stand-ins."""

from __future__ import annotations

from pathlib import Path

WORDS = (
    "drug lowered raised pressure pain in adults children did not reduce improved worsened mortality".split()
)


def save_tiny_bert(folder: Path, id2label: dict[int, str] | None = None, seed: int = 0) -> Path:
    """A 2-layer BERT (hidden 32) with a word-level vocabulary and a sequence-classification head."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", *WORDS]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    # the vocabulary passed as a mapping: transformers 5 ignores a vocab_file here and keeps only
    # the special tokens, which reads every word as [UNK]
    tokenizer = BertTokenizerFast(
        vocab={token: index for index, token in enumerate(vocab)}, do_lower_case=True
    )
    labels = (
        {} if id2label is None else {"id2label": id2label, "label2id": {v: k for k, v in id2label.items()}}
    )
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        **labels,
    )
    torch.manual_seed(seed)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def save_tiny_classifier(base: Path, folder: Path, seed: int) -> None:
    """A LoRA contradiction classifier folder on the tiny BERT at ``base``, with seeded random
    adapter weights: it scores pairs as a trained one does, by no particular rule."""
    import torch
    from peft import get_peft_model

    from scicon.classifier_folder import load_base_model, load_tokenizer, save_classifier
    from scicon.train.lora import LABELS, lora_config
    from scicon.train.params import FinetuneParams
    from tests.params_defaults import section

    params = section("finetune", FinetuneParams, base_model=str(base), max_length=32, seed=seed)
    tokenizer = load_tokenizer(params.base_model)
    model = get_peft_model(load_base_model(params.base_model, tokenizer, LABELS), lora_config(params))
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for weight in (w for w in model.parameters() if w.requires_grad):
            weight.copy_(torch.randn(weight.shape, generator=generator) * 0.5)
    save_classifier(model, tokenizer, params.base_model, params.max_length, folder, LABELS, params.seed)
