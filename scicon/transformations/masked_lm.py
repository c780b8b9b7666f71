"""Masked-language-model replacement (the paper's "MLM Replacements" ablation, section 6.3).

A content word of sentence2 is masked and replaced by one of the model's top
predictions other than the word itself. Any Hugging Face fill-mask model works
(e.g. a biomedical BERT); none ships offline, so this needs a local model folder or
a hub connection.
"""

from __future__ import annotations

import random
import threading

from pydantic import Field

from scicon.assembly_context import AssemblyContext
from scicon.models import resolve_model
from scicon.params import Section
from scicon.transformations import TRANSFORMATIONS
from scicon.transformations.base import MutationRequest, RandomizedTransformation
from scicon.transformations.random_words import content_word_spans


class MaskedLmSettings(Section):
    model: str = Field(min_length=1, description="a fill-mask model folder or hub id")
    top_k: int = Field(gt=0, description="predictions to choose from")


class MaskedLmReplacement(RandomizedTransformation):
    name = "mlm"

    def __init__(self, model: str, top_k: int):
        import torch
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        self._torch = torch
        reference = resolve_model(model)
        self.reference = reference
        self.tokenizer = AutoTokenizer.from_pretrained(reference)
        self.model = AutoModelForMaskedLM.from_pretrained(reference).eval()
        self.top_k = top_k
        self._lock = threading.Lock()

    def models(self) -> dict[str, object]:
        return {"mlm": self.reference}

    def _sample(self, request: MutationRequest, rng: random.Random) -> str | None:
        spans = content_word_spans(request.sentence2)
        if not spans:
            return None
        start, end = rng.choice(spans)
        original = request.sentence2[start:end]
        masked = request.sentence2[:start] + self.tokenizer.mask_token + request.sentence2[end:]
        options = [w for w in self._predictions(masked) if w.lower() != original.lower()]
        if not options:
            return None
        return request.sentence2[:start] + rng.choice(options) + request.sentence2[end:]

    def _predictions(self, masked: str) -> list[str]:
        torch = self._torch
        with self._lock, torch.inference_mode():
            encoded = self.tokenizer(masked, return_tensors="pt", truncation=True)
            position = (encoded["input_ids"][0] == self.tokenizer.mask_token_id).nonzero()[0, 0]
            logits = self.model(**encoded).logits[0, position]
            top = torch.topk(logits, self.top_k * 3).indices.tolist()
        words = []
        for token in top:
            word = self.tokenizer.decode([token]).strip()
            # whole words only: sub-word pieces and punctuation would break the sentence
            if word.isalpha() and not word.startswith("##") and word not in words:
                words.append(word)
        return words[: self.top_k]


@TRANSFORMATIONS.register("mlm", settings=MaskedLmSettings, description="a masked LM's top predictions")
def masked_lm_replacement(settings: MaskedLmSettings, context: AssemblyContext) -> MaskedLmReplacement:
    return MaskedLmReplacement(settings.model, settings.top_k)
