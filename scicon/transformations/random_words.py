"""Random word replacement (the paper's "Random Replacement" ablation, section 6.3).

One or two content words of sentence2 are replaced by words drawn uniformly from
the corpus vocabulary; there is no guidance toward the target label.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence

from pydantic import Field
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from scicon.assembly_context import AssemblyContext
from scicon.params import Section
from scicon.transformations import TRANSFORMATIONS
from scicon.transformations.base import MutationRequest, RandomizedTransformation

_WORD = re.compile(r"[A-Za-z][A-Za-z-]+")


def content_word_spans(sentence: str) -> list[tuple[int, int]]:
    return [m.span() for m in _WORD.finditer(sentence) if m.group().lower() not in ENGLISH_STOP_WORDS]


def corpus_vocabulary(sentences: Iterable[str]) -> list[str]:
    words = {m.group().lower() for s in sentences for m in _WORD.finditer(s)}
    return sorted(w for w in words if len(w) > 2 and w not in ENGLISH_STOP_WORDS)


class RandomWordReplacement(RandomizedTransformation):
    name = "random"

    def __init__(self, vocabulary: Sequence[str], max_words: int):
        if not vocabulary:
            raise ValueError("random word replacement needs a non-empty vocabulary")
        self.vocabulary = list(vocabulary)
        self.max_words = max_words

    def _sample(self, request: MutationRequest, rng: random.Random) -> str | None:
        spans = content_word_spans(request.sentence2)
        if not spans:
            return None
        chosen = sorted(rng.sample(spans, min(len(spans), rng.randint(1, self.max_words))), reverse=True)
        text = request.sentence2
        for start, end in chosen:  # right to left keeps earlier offsets valid
            text = text[:start] + rng.choice(self.vocabulary) + text[end:]
        return text


class RandomReplacementSettings(Section):
    max_words: int = Field(gt=0, description="content words replaced per rewrite (at most)")


@TRANSFORMATIONS.register(
    "random", settings=RandomReplacementSettings, description="random corpus words, no guidance"
)
def random_word_replacement(
    settings: RandomReplacementSettings, context: AssemblyContext
) -> RandomWordReplacement:
    vocabulary = corpus_vocabulary(s.text for a in context.abstracts for s in a.sentences)
    return RandomWordReplacement(vocabulary, settings.max_words)
