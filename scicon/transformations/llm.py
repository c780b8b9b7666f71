"""LLM word replacement (paper prompt E.3.3): the backbone rewrites sentence2 toward the target."""

from __future__ import annotations

from collections.abc import Sequence

from scicon.backbones import CachedBackbone, Sampling
from scicon.prompts import TARGET_LABEL_WORDS, WORD_REPLACEMENT, parse_rewrite
from scicon.transformations.base import MutationRequest, usable


class LlmWordReplacement:
    name = "llm"

    def __init__(self, backbone: CachedBackbone, sampling: Sampling):
        self.backbone = backbone
        self.sampling = sampling

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
            [None if c.truncated else usable(parse_rewrite(c.text, r.sentence2), r) for c in completions]
            for r, completions in zip(requests, outputs, strict=True)
        ]
