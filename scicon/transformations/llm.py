"""LLM word replacement (paper prompt E.3.3): the backbone rewrites sentence2 toward the target."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from scicon.assembly_context import AssemblyContext
from scicon.backbones.base import Sampling
from scicon.backbones.cache import CachedBackbone
from scicon.params import Section
from scicon.prompts import TARGET_LABEL_WORDS, WORD_REPLACEMENT, parse_rewrite
from scicon.transformations import TRANSFORMATIONS
from scicon.transformations.base import MutationRequest


class LlmRewriteSettings(Section):
    temperature: float = Field(ge=0.0)
    top_p: float = Field(gt=0.0, le=1.0)
    max_new_tokens: int = Field(gt=0)
    backbone: dict | None = Field(description="overrides of the backbone section for the rewriter")


class LlmWordReplacement:
    name = "llm"

    def __init__(self, backbone: CachedBackbone, sampling: Sampling):
        self.backbone = backbone
        self.sampling = sampling

    def models(self) -> dict[str, object]:
        return {"backbone": self.backbone.identity_digest}

    def propose(self, requests: Sequence[MutationRequest]) -> list[list[str | None]]:
        if not requests:
            return []
        count = requests[0].count
        if any(r.count != count for r in requests):
            raise ValueError("all requests of one batch ask for the same number of candidates")
        prompts = [
            WORD_REPLACEMENT.format(
                target_label=TARGET_LABEL_WORDS[r.target], sentence1=r.sentence1, sentence2=r.sentence2
            )
            for r in requests
        ]
        outputs = self.backbone.generate(prompts, [r.seed for r in requests], n=count, sampling=self.sampling)
        # a rewrite cut off by the token limit is a failed mutation, not a candidate
        return [
            [None if c.truncated else parse_rewrite(c.text, r.sentence2) for c in completions]
            for r, completions in zip(requests, outputs, strict=True)
        ]


@TRANSFORMATIONS.register(
    "llm",
    settings=LlmRewriteSettings,
    needs_backbone=True,
    description="the backbone rewrites (prompt E.3.3)",
)
def llm_word_replacement(settings: LlmRewriteSettings, context: AssemblyContext) -> LlmWordReplacement:
    sampling = Sampling(
        temperature=settings.temperature, max_tokens=settings.max_new_tokens, top_p=settings.top_p
    )
    backbone = context.backbone(settings.backbone, "evolve.settings.transformation.llm.backbone")
    return LlmWordReplacement(backbone, sampling)
