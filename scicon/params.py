"""Validated views of params.yaml, one model per section.

Stages read only their own section (plus the top-level EvoNLI thresholds) so a
typo or out-of-range value fails at start-up with the key and value named,
instead of deep inside a long run.
"""

from __future__ import annotations

import os
import re
from enum import StrEnum
from typing import Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from scicon.errors import ParamsError
from scicon.records import PairKind, TargetLabel


class Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


Probability = Field(ge=0.0, le=1.0)


class Thresholds(Section):
    """EvoNLI filter thresholds (paper Table 6), top-level keys so `dvc exp run -S sim=0.7` works."""

    sim: float = Probability
    claim: float = Probability
    target: float = Probability


class IngestParams(Section):
    source: str = Field(min_length=1, description="local path, http(s) URL or named source")
    split: str | None = Field(default=None, description="split of a named source, or member of an archive")
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    max_abstracts: int | None = Field(default=None, gt=0)
    seed: int = 0
    detokenize: Literal["auto", "always", "never"] = "auto"


class PairsParams(Section):
    kinds: tuple[PairKind, ...] = Field(min_length=1)
    result_selector: Literal["tfidf", "overlap", "llm"] = "tfidf"
    llm_fallback: Literal["tfidf", "overlap", "none"] = "tfidf"
    generate_missing_conclusions: bool = False
    llm_max_tokens: int = Field(default=160, gt=0)
    max_conclusion_pairs_per_abstract: int | None = Field(default=None, ge=0)
    max_result_pairs_per_abstract: int | None = Field(default=None, ge=0)
    min_words: int = Field(default=1, gt=0)

    @field_validator("kinds")
    @classmethod
    def _distinct(cls, kinds: tuple[PairKind, ...]) -> tuple[PairKind, ...]:
        if len(set(kinds)) != len(kinds):
            raise ValueError("pair kinds are listed more than once")
        return kinds


class EvolveParams(Section):
    """The evolve stage: Algorithm 1's sizes (paper Table 6) and its four swappable parts.

    Each paper ablation is a value here (see scicon.recipes); thresholds are top-level.
    """

    population_size: int = Field(default=4, gt=0)
    candidates_per_mutation: int = Field(default=5, gt=0)
    max_iterations: int = Field(default=4, gt=0)
    targets: tuple[TargetLabel, ...] = Field(default=(TargetLabel.CONTRADICTION,), min_length=1)
    search: Literal["evolutionary", "direct_prompt"] = "evolutionary"
    transformation: Literal["llm", "random", "mlm", "rules", "mixed"] = "llm"
    rules_share: float = Field(default=0.5, ge=0.0, le=1.0, description="mixed: share of rule candidates")
    rule_operators: tuple[str, ...] | None = None
    similarity: Literal["llm", "embedding", "off"] = "llm"
    similarity_reference: Literal["sentence1", "original"] = "sentence1"
    claim: Literal["llm", "roles", "off"] = "llm"
    goal: Literal["llm", "classifier"] = "llm"
    classifier_model: str | None = None
    contradiction_label: str = "contradiction"
    mlm_model: str = "microsoft/BiomedNLP-BiomedBERT-base-uncased-abstract"
    embedding_model: str = "embedded:all-minilm-l6-v2"
    temperature: float = Field(default=0.9, ge=0.0)
    top_p: float = Field(default=0.95, gt=0.0, le=1.0)
    max_new_tokens: int = Field(default=96, gt=0)
    pair_kinds: tuple[PairKind, ...] = Field(
        default=(PairKind.CONCLUSION_CONCLUSION, PairKind.RESULT_CONCLUSION), min_length=1
    )
    max_pairs: int | None = Field(default=None, gt=0)
    seed: int = 0
    workers: int = Field(default=1, gt=0)

    @model_validator(mode="after")
    def _classifier_needs_model(self) -> EvolveParams:
        if self.goal == "classifier" and not self.classifier_model:
            raise ValueError("goal 'classifier' needs classifier_model (a sequence-classification model)")
        if len(set(self.targets)) != len(self.targets):
            raise ValueError("targets are listed more than once")
        return self


class BackboneParams(Section):
    """The foundation model behind every generation and yes/no score (paper section 3.2.1)."""

    backend: Literal["llama_cpp", "transformers", "openai"] = "llama_cpp"
    model: str = Field(default="embedded:smollm2-135m-instruct", min_length=1)
    chat_template: Literal["auto", "none"] = "auto"
    revision: str | None = Field(default=None, description="hub revision, or a tag for a served model")
    context_length: int = Field(default=2048, gt=0)
    threads: int | None = Field(default=None, gt=0, description="llama.cpp CPU threads")
    batch_size: int = Field(default=8, gt=0, description="transformers batch size")
    device: str = "auto"
    dtype: str = "auto"
    base_url: str | None = None
    api: Literal["chat", "completions"] = "chat"
    api_key_env: str | None = "OPENAI_API_KEY"
    max_concurrency: int = Field(default=8, gt=0)
    timeout_seconds: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=4, ge=0)
    top_logprobs: int = Field(default=20, gt=0)

    @model_validator(mode="after")
    def _server_needs_url(self) -> BackboneParams:
        if self.backend == "openai" and not self.base_url:
            raise ValueError("backend 'openai' needs base_url (e.g. http://localhost:8000/v1)")
        return self


class NegativesParams(Section):
    """Rule-based negatives (stage `negatives`); operator names are checked against the registry."""

    generator: Literal["operators", "modified_eda"] = "operators"
    operators: tuple[str, ...] = Field(min_length=1)
    sentences: tuple[Literal["sentence1", "sentence2"], ...] = Field(min_length=1)
    max_per_pair: int = Field(gt=0, description="contradictions per source sentence")
    control_ratio: float = Field(ge=0.0, le=10.0, description="label-preserving controls per contradiction")
    seed: int = 0

    @field_validator("operators", "sentences")
    @classmethod
    def _listed_once(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(values)) != len(values):
            raise ValueError("an entry is listed more than once")
        return values


class BuildSource(StrEnum):
    """Where SciCon rows come from; ``build.sources`` lists the ones to use."""

    EVONLI = "evonli"  # evolve: accepted pairs with target contradiction (label 1)
    EVONLI_NON_CONTRADICTION = "evonli_non_contradiction"  # evolve: target non_contradiction (label 0)
    ORIGINAL = "original"  # pairs: the unmutated entailing pairs (label 0)
    RULES = "rules"  # negatives: rule-made contradictions (label 1)
    RULE_CONTROLS = "rule_controls"  # negatives: label-preserving rule edits (label 0)


class BuildParams(Section):
    sources: tuple[BuildSource, ...] = Field(min_length=1)
    dev_fraction: float = Field(ge=0.0, lt=1.0)
    test_fraction: float = Field(ge=0.0, lt=1.0)
    seed: int = 0
    hypothesis_only_baseline: bool = True

    @field_validator("sources")
    @classmethod
    def _distinct_sources(cls, sources: tuple[BuildSource, ...]) -> tuple[BuildSource, ...]:
        if len(set(sources)) != len(sources):
            raise ValueError("sources are listed more than once")
        return sources

    @model_validator(mode="after")
    def _fractions_leave_training_data(self) -> BuildParams:
        if self.dev_fraction + self.test_fraction >= 1.0:
            raise ValueError("dev_fraction + test_fraction must leave a training split (sum below 1)")
        return self


class FinetuneParams(Section):
    """LoRA fine-tuning. The paper's GPU settings are Table 7; params.yaml says which differ."""

    base_model: str = Field(min_length=1, description="embedded:<name>, a model folder or a hub id")
    max_length: int = Field(gt=0)
    learning_rate: float = Field(gt=0.0)
    per_device_batch_size: int = Field(gt=0)
    gradient_accumulation_steps: int = Field(gt=0)
    epochs: float = Field(gt=0.0)
    max_steps: int | None = Field(default=None, gt=0, description="overrides epochs when set")
    lr_scheduler: Literal["cosine", "linear", "constant", "constant_with_warmup"] = "cosine"
    warmup_ratio: float = Field(ge=0.0, lt=1.0)
    weight_decay: float = Field(ge=0.0)
    lora_r: int = Field(gt=0)
    lora_alpha: int = Field(gt=0)
    lora_dropout: float = Field(ge=0.0, lt=1.0)
    target_modules: str | tuple[str, ...] = Field(description="'all-linear' or module names")
    optimizer: Literal["auto", "adamw_torch", "adamw_8bit"] = "auto"
    precision: Literal["auto", "fp32", "bf16", "fp16"] = "auto"
    eval_steps: int = Field(gt=0)
    logging_steps: int = Field(gt=0)
    early_stopping_patience: int | None = Field(default=None, gt=0)
    max_train_examples: int | None = Field(default=None, gt=0)
    seed: int = 0


class BenchmarkSpec(Section):
    """One benchmark: a loader kind from the registry, a path, and the loader's options."""

    kind: str = Field(min_length=1)
    path: str | None = None
    options: dict = Field(default_factory=dict)


class EvaluateParams(Section):
    benchmarks: dict[str, BenchmarkSpec] = Field(min_length=1)
    batch_size: int = Field(gt=0)
    zero_shot: bool = True
    bootstrap_resamples: int = Field(gt=0)
    confidence_level: float = Field(gt=0.0, lt=1.0)
    ngram_sizes: tuple[int, ...] = Field(min_length=1)
    max_examples: int | None = Field(default=None, gt=0, description="seeded sample per benchmark")
    seed: int = 0

    @field_validator("benchmarks")
    @classmethod
    def _snake_case_names(cls, benchmarks: dict[str, BenchmarkSpec]) -> dict[str, BenchmarkSpec]:
        for name in benchmarks:
            if not re.fullmatch(r"[a-z0-9_]+", name):
                raise ValueError(f"benchmark name {name!r} must be snake_case (it becomes a metrics key)")
        return benchmarks


SectionT = TypeVar("SectionT", bound=Section)


def read_params_file(path: str | os.PathLike = "params.yaml") -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except FileNotFoundError as error:
        raise ParamsError(f"{path}: parameters file not found") from error
    except yaml.YAMLError as error:
        raise ParamsError(f"{path}: not valid YAML: {error}") from error
    if not isinstance(data, dict):
        raise ParamsError(f"{path}: expected a mapping of sections at the top level")
    return data


def load_section(path: str | os.PathLike, name: str, model: type[SectionT]) -> SectionT:
    """Validate section ``name`` of the params file against ``model``."""
    data = read_params_file(path)
    if name not in data:
        raise ParamsError(f"{path}: section '{name}' is missing")
    return _validate(path, model, data[name], prefix=f"{name}.")


def load_thresholds(path: str | os.PathLike = "params.yaml") -> Thresholds:
    data = read_params_file(path)
    return _validate(path, Thresholds, {key: data.get(key) for key in Thresholds.model_fields}, "")


def _validate(path, model: type[SectionT], value: object, prefix: str) -> SectionT:
    try:
        return model.model_validate(value)
    except ValidationError as error:
        problems = []
        for item in error.errors():
            key = prefix + ".".join(str(part) for part in item["loc"])
            given = item.get("input")
            problems.append(f"{key.rstrip('.')}: {item['msg']} (got {given!r})")
        raise ParamsError(f"{path}: " + "; ".join(problems)) from error
