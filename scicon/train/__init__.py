"""LoRA fine-tuning of contradiction classifiers on SciCon (scoring: :mod:`scicon.classifier`)."""

from scicon.train.lora import FinetuneResult, finetune, save_classifier

__all__ = ["FinetuneResult", "finetune", "save_classifier"]
