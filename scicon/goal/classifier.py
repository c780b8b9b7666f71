"""A trained teacher: a sequence-classification model's P(contradiction) (the paper's
"Cross Encoder" ablation, Table 2, or a contradiction teacher trained in the DAG)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from pydantic import Field

from scicon.errors import ParamsError
from scicon.evolve.context import AssemblyContext
from scicon.goal import GOALS
from scicon.goal.base import SentencePair
from scicon.params import Section


class ClassifierGoalSettings(Section):
    model: str | None = Field(description="a sequence-classification model folder or a fine-tuned adapter")
    contradiction_label: str = Field(
        min_length=1, description="that model's contradiction label (name or index)"
    )


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

    def contradiction_probabilities(self, pairs: Sequence[SentencePair]) -> list[float | None]:
        torch = self._torch
        probabilities: list[float | None] = []
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
        f"{model}: no label {wanted!r} among {sorted(id2label.values())}; "
        "set evolve.settings.goal.classifier.contradiction_label"
    )


@GOALS.register("classifier", settings=ClassifierGoalSettings, description="a sequence-classification model")
def classifier_goal(settings: ClassifierGoalSettings, context: AssemblyContext) -> SequenceClassifierScorer:
    if not settings.model:
        raise ParamsError("evolve.settings.goal.classifier.model: the classifier goal needs a model folder")
    from scicon.backbones.cache import weights_identity

    context.record_model(f"classifier:{settings.model}", weights_identity(settings.model, context.cache))
    return SequenceClassifierScorer(settings.model, settings.contradiction_label)
