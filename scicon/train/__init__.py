"""LoRA fine-tuning of contradiction classifiers on SciCon."""

from scicon.train.lora import FinetuneResult, finetune, load_classifier, predict_contradiction

__all__ = ["FinetuneResult", "finetune", "load_classifier", "predict_contradiction"]
