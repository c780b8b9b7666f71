"""The goal of the search: a confident target label from a frozen teacher (CLASSIFY)."""

from scicon.goal.target_confidence import (
    ContradictionScorer,
    LlmContradictionScorer,
    SequenceClassifierScorer,
    TargetConfidence,
)

__all__ = ["ContradictionScorer", "LlmContradictionScorer", "SequenceClassifierScorer", "TargetConfidence"]
