"""Zero-shot contradiction scores: the paper's zero-shot baseline (Table 1).

Each model is prompted to classify a pair as contradictory or not, without
training. The score of a pair is the teacher's P(contradiction) — for the backbone,
its P("yes") against P("no") under the Samples Classification prompt (E.3.4), read
from one forward pass (:class:`scicon.goal.LlmContradictionScorer`, the same teacher
EvoNLI searches against) — so it ranks pairs and gives a ROC-AUC like the
fine-tuned model's probability does.
"""

from __future__ import annotations

from collections.abc import Sequence

from tqdm.auto import tqdm

from scicon.goal.base import ContradictionScorer


def zero_shot_scores(
    scorer: ContradictionScorer,
    pairs: Sequence[tuple[str, str]],
    batch_size: int = 16,
    label: str = "zero-shot",
) -> list[float]:
    """P(contradiction) for each (sentence1, sentence2), in input order."""
    scores: list[float] = []
    for start in tqdm(range(0, len(pairs), batch_size), desc=label, unit="batch", leave=False):
        batch = pairs[start : start + batch_size]
        probabilities = scorer.contradiction_probabilities(batch)
        if len(probabilities) != len(batch):
            raise RuntimeError(f"the scorer returned {len(probabilities)} scores for {len(batch)} pairs")
        scores.extend(float(p) for p in probabilities)
    return scores
