"""Word deletion: one content word of sentence2 removed at random, with no guidance toward the
target label (a rule-free baseline beside random replacement)."""

from __future__ import annotations

import random

from scicon.assembly_context import AssemblyContext
from scicon.transformations import TRANSFORMATIONS
from scicon.transformations.base import MutationRequest, RandomizedTransformation
from scicon.transformations.random_words import content_word_spans


class WordDeletion(RandomizedTransformation):
    name = "word_deletion"

    def _sample(self, request: MutationRequest, rng: random.Random) -> str | None:
        spans = content_word_spans(request.sentence2)
        if not spans:
            return None
        start, end = rng.choice(spans)
        before, after = request.sentence2[:start], request.sentence2[end:]
        # the word goes with one space beside it, so no gap is left before punctuation
        return before + after.removeprefix(" ") if after.startswith(" ") else before.rstrip(" ") + after


@TRANSFORMATIONS.register("word_deletion", description="one content word deleted, no guidance")
def word_deletion(settings: None, context: AssemblyContext) -> WordDeletion:
    return WordDeletion()
