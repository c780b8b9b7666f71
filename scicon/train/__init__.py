"""LoRA fine-tuning of contradiction classifiers on SciCon (scoring: :mod:`scicon.classifier`)."""

from scicon.train.lora import FinetuneResult, finetune

__all__ = ["FinetuneResult", "finetune"]
