"""CLASSIFY of Algorithm 1: the teacher's confidence in the target label for (P1, P2').

A contradiction scorer gives P(contradiction) for sentence pairs; the goal turns it
into the target label's confidence (1 − P(contradiction) for the NON-CONTRADICTION
target) and decides when the search is done. Two teachers: the backbone with the
paper's classification prompt (E.3.4), or a sequence-classification model — the
paper's cross-encoder ablation, or SciCon's own fine-tuned classifier.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from scicon.backbones import CachedBackbone
from scicon.errors import ParamsError
from scicon.prompts import CLASSIFICATION
from scicon.records.base import TargetLabel

SentencePair = tuple[str, str]


class ContradictionScorer(Protocol):
    name: str

    def contradiction_probabilities(self, pairs: Sequence[SentencePair]) -> list[float]: ...


class LlmContradictionScorer:
    name = "llm"

    def __init__(self, backbone: CachedBackbone):
        self.backbone = backbone

    def contradiction_probabilities(self, pairs: Sequence[SentencePair]) -> list[float]:
        prompts = [CLASSIFICATION.format(sentence1=first, sentence2=second) for first, second in pairs]
        return self.backbone.yes_probability(prompts)


class SequenceClassifierScorer:
    """P(contradiction) from a Hugging Face sequence-classification model or a PEFT adapter."""

    name = "classifier"

    def __init__(self, model: str, contradiction_label: str = "contradiction", batch_size: int = 16):
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self._torch = torch
        folder = Path(model)
        if (folder / "adapter_config.json").exists():
            from peft import AutoPeftModelForSequenceClassification

            self.model = AutoPeftModelForSequenceClassification.from_pretrained(model)
        else:
            self.model = AutoModelForSequenceClassification.from_pretrained(model)
        self.model.eval()
        self.tokenizer = AutoTokenizer.from_pretrained(model)
        self.label_index = _label_index(self.model.config.id2label, contradiction_label, model)
        self.batch_size = batch_size
        self._lock = threading.Lock()

    def contradiction_probabilities(self, pairs: Sequence[SentencePair]) -> list[float]:
        torch = self._torch
        probabilities: list[float] = []
        with self._lock, torch.inference_mode():
            for start in range(0, len(pairs), self.batch_size):
                batch = pairs[start : start + self.batch_size]
                encoded = self.tokenizer(
                    [first for first, _ in batch],
                    [second for _, second in batch],
                    padding=True,
                    truncation=True,
                    return_tensors="pt",
                )
                logits = self.model(**encoded).logits.float()
                probabilities.extend(torch.softmax(logits, dim=-1)[:, self.label_index].tolist())
        return probabilities


def _label_index(id2label: dict, wanted: str, model: str) -> int:
    if wanted.isdigit():
        return int(wanted)
    for index, name in id2label.items():
        if str(name).lower() == wanted.lower():
            return int(index)
    raise ParamsError(
        f"{model}: no label {wanted!r} among {sorted(id2label.values())}; set evolve.contradiction_label"
    )


class TargetConfidence:
    """Confidence in the target label, and whether it is high enough to stop (T_conf)."""

    def __init__(self, scorer: ContradictionScorer, label: TargetLabel, threshold: float):
        self.scorer = scorer
        self.label = label
        self.threshold = threshold

    def confidences(self, pairs: Sequence[SentencePair]) -> list[float]:
        contradiction = self.scorer.contradiction_probabilities(pairs)
        if self.label is TargetLabel.CONTRADICTION:
            return contradiction
        return [1.0 - p for p in contradiction]

    def is_complete(self, confidence: float) -> bool:
        return confidence >= self.threshold

    def should_skip(self, original_confidence: float) -> bool:
        """An entailing pair the teacher already calls a contradiction is not a valid start.

        For the non-contradiction target the original pair meets the goal by design;
        the search still has to find a mutated pair, so nothing is skipped.
        """
        return self.label is TargetLabel.CONTRADICTION and self.is_complete(original_confidence)
