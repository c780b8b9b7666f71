"""Word deletion: content words of sentence2 removed at random, with no guidance toward the
target label (a rule-free baseline beside random replacement)."""

from __future__ import annotations

import random

from pydantic import Field

from scicon.assembly_context import AssemblyContext
from scicon.params import Section
from scicon.transformations import TRANSFORMATIONS
from scicon.transformations.base import MutationRequest, RandomizedTransformation
from scicon.transformations.random_words import content_word_spans


class WordDeletion(RandomizedTransformation):
    name = "word_deletion"

    def __init__(self, max_words: int = 1):
        self.max_words = max_words

    def _sample(self, request: MutationRequest, rng: random.Random) -> str | None:
        spans = content_word_spans(request.sentence2)
        if not spans:
            return None
        text = request.sentence2
        for start, end in sorted(rng.sample(spans, min(len(spans), self.max_words)), reverse=True):
            before, after = text[:start], text[end:]
            # the word goes with one space beside it, so no gap is left before punctuation
            text = before + after.removeprefix(" ") if after.startswith(" ") else before.rstrip(" ") + after
        return text


class WordDeletionSettings(Section):
    max_words: int = Field(gt=0, description="content words deleted per rewrite")


@TRANSFORMATIONS.register(
    "word_deletion", settings=WordDeletionSettings, description="content words deleted, no guidance"
)
def word_deletion(settings: WordDeletionSettings, context: AssemblyContext) -> WordDeletion:
    return WordDeletion(settings.max_words)
