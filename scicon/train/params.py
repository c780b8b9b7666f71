"""Parameters of the finetune stage (`finetune` in params.yaml)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from scicon.params import Section


class FinetuneParams(Section):
    """LoRA fine-tuning. The paper's GPU settings are Table 7; params.yaml says which differ."""

    method: Literal["lora", "full"] = Field(
        description="lora: train low-rank adapters and the head (paper Table 7); full: every weight"
    )
    base_model: str = Field(min_length=1, description="embedded:<name>, a model folder or a hub id")
    max_length: int = Field(gt=0)
    learning_rate: float = Field(gt=0.0)
    per_device_batch_size: int = Field(gt=0)
    gradient_accumulation_steps: int = Field(gt=0)
    epochs: float = Field(gt=0.0)
    max_steps: int | None = Field(gt=0, description="overrides epochs when set")
    lr_scheduler: Literal["cosine", "linear", "constant", "constant_with_warmup"]
    warmup_ratio: float = Field(ge=0.0, lt=1.0)
    weight_decay: float = Field(ge=0.0)
    lora_r: int = Field(gt=0)
    lora_alpha: int = Field(gt=0)
    lora_dropout: float = Field(ge=0.0, lt=1.0)
    target_modules: str | tuple[str, ...] = Field(description="'all-linear' or module names")
    optimizer: Literal["auto", "adamw_torch", "adamw_8bit"]
    precision: Literal["auto", "fp32", "bf16", "fp16"]
    eval_steps: int = Field(gt=0)
    logging_steps: int = Field(gt=0)
    early_stopping_patience: int | None = Field(gt=0)
    max_train_examples: int | None = Field(gt=0)
    calibration: Literal["sigmoid", "isotonic"] = Field(
        description="map P(contradiction) to a probability fitted on the dev split (calibration.json)"
    )
    batching: Literal["random", "group_by_length"] = Field(
        description="random batches, or batches of similar length drawn in random order (less padding)"
    )
    seed: int
