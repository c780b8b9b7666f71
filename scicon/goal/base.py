"""What a teacher gives (P(contradiction) of sentence pairs) and what the search makes of it.

A contradiction scorer gives P(contradiction) for sentence pairs — None where it has no
usable answer (a language model that put too little probability on yes and no). The
goal turns it into the target label's confidence (1 − P(contradiction) for the
NON-CONTRADICTION target) and decides when the search is done.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from scicon.params import meets_threshold
from scicon.records.base import TargetLabel

if TYPE_CHECKING:
    from scicon.assembly_context import AssemblyContext

SentencePair = tuple[str, str]


class ContradictionScorer(Protocol):
    """``originals``, one per pair (None where a pair is not an edit), is the sentence each
    sentence2 was edited from: a judge that reads edits is shown what changed; others ignore it."""

    name: str

    def contradiction_probabilities(
        self, pairs: Sequence[SentencePair], originals: Sequence[str | None] | None = None
    ) -> list[float | None]: ...


class GoalFactory(Protocol):
    """A registered teacher: its validated settings (None without any) and the context."""

    def __call__(self, settings: Any, context: AssemblyContext) -> ContradictionScorer: ...


class TargetConfidence:
    """Confidence in the target label, and whether it is high enough to stop (T_conf)."""

    def __init__(self, scorer: ContradictionScorer, label: TargetLabel, threshold: float):
        self.scorer = scorer
        self.label = label
        self.threshold = threshold

    def confidences(self, pairs: Sequence[SentencePair], original: str | None = None) -> list[float | None]:
        """The target label's confidence of each pair; ``original`` is the sentence every
        sentence2 was edited from (the search's original sentence2), shown to a judge that reads
        edits."""
        originals = None if original is None else [original] * len(pairs)
        contradiction = self.scorer.contradiction_probabilities(pairs, originals=originals)
        if self.label is TargetLabel.CONTRADICTION:
            return contradiction
        return [None if p is None else 1.0 - p for p in contradiction]

    def is_complete(self, confidence: float | None) -> bool:
        return confidence is not None and meets_threshold(confidence, self.threshold)

    def should_skip(self, original_confidence: float | None) -> bool:
        """An entailing pair the teacher already calls a contradiction is not a valid start.

        For the non-contradiction target the original pair meets the goal by design;
        the search still has to find a mutated pair, so nothing is skipped.
        """
        return self.label is TargetLabel.CONTRADICTION and self.is_complete(original_confidence)
