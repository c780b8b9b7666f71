"""Backbone-driven pairing: the paper's Result Extraction (E.3.2) and Conclusion Generation (E.3.1).

The model is asked which sentence of the abstract supports a conclusion; its answer
is matched back to the abstract's RESULTS sentences. The rhetorical roles validate
the model (paper section 3.1): an answer that is not one of the RESULTS sentences
is not accepted, and the request falls back to a cheap selector when one is set.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from scicon.backbones import CachedBackbone, Sampling
from scicon.pairing.selectors import ResultSelector, Selection, SelectionRequest
from scicon.prompts import CONCLUSION_GENERATION, RESULT_EXTRACTION, match_sentence, parse_generated_sentence
from scicon.records.corpus import Abstract, Role

log = logging.getLogger(__name__)

# Greedy decoding: selection and generation here should not depend on a sample.
_GREEDY_SEED = 0


class LlmResultSelector:
    name = "llm"

    def __init__(
        self, backbone: CachedBackbone, fallback: ResultSelector | None = None, max_tokens: int = 160
    ):
        self.backbone = backbone
        self.fallback = fallback
        self.sampling = Sampling(temperature=0.0, max_tokens=max_tokens)
        self.fallbacks = 0

    def fit(self, abstracts: Sequence[Abstract]) -> None:
        if self.fallback is not None:
            self.fallback.fit(abstracts)

    def select(self, requests: Sequence[SelectionRequest]) -> list[Selection | None]:
        prompts = [
            RESULT_EXTRACTION.format(
                abstract=" ".join(s.text for s in r.abstract.sentences),
                conclusion=r.abstract.sentences[r.conclusion_index].text,
            )
            for r in requests
        ]
        answers = self.backbone.generate(prompts, [_GREEDY_SEED] * len(prompts), n=1, sampling=self.sampling)
        selections: list[Selection | None] = []
        unmatched: list[int] = []
        for position, (request, (answer,)) in enumerate(zip(requests, answers, strict=True)):
            results = request.abstract.indices(Role.RESULTS)
            # an answer cut off by the token limit is no answer
            matched = (
                None
                if answer.truncated
                else match_sentence(answer.text, [request.abstract.sentences[i].text for i in results])
            )
            if matched is None:
                selections.append(None)
                unmatched.append(position)
            else:
                selections.append(Selection(index=results[matched], score=1.0, method=self.name))
        if unmatched and self.fallback is not None:
            fallback = self.fallback.select([requests[i] for i in unmatched])
            for position, selection in zip(unmatched, fallback, strict=True):
                if selection is not None:
                    selections[position] = Selection(
                        selection.index, selection.score, method=f"{self.name}_fallback_{self.fallback.name}"
                    )
        self.fallbacks += len(unmatched)
        log.info(
            "result extraction: %d of %d answers matched a RESULTS sentence",
            len(requests) - len(unmatched),
            len(requests),
        )
        return selections


class ConclusionWriter:
    """Writes a one-sentence conclusion for an abstract that has none (prompt E.3.1)."""

    def __init__(self, backbone: CachedBackbone, max_tokens: int = 96):
        self.backbone = backbone
        self.sampling = Sampling(temperature=0.0, max_tokens=max_tokens)

    def write(self, abstracts: Sequence[Abstract]) -> list[str | None]:
        prompts = [
            CONCLUSION_GENERATION.format(
                abstract_without_conclusion=" ".join(
                    s.text for s in abstract.sentences if s.role is not Role.CONCLUSIONS
                )
            )
            for abstract in abstracts
        ]
        answers = self.backbone.generate(prompts, [_GREEDY_SEED] * len(prompts), n=1, sampling=self.sampling)
        return [None if answer.truncated else parse_generated_sentence(answer.text) for (answer,) in answers]
