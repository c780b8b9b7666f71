"""Zero-shot contradiction scores: the paper's zero-shot baseline (Table 1).

Each model is prompted to classify a pair as contradictory or not, without
training. The score of a pair is the teacher's P(contradiction) — for the backbone,
its P("yes") against P("no") under the Samples Classification prompt (E.3.4), read
from one forward pass (the ``llm`` goal of :data:`scicon.goal.GOALS`, the same teacher
EvoNLI searches against) — so it ranks pairs and gives a ROC-AUC like the
fine-tuned model's probability does.
"""

from __future__ import annotations

from collections.abc import Sequence

from tqdm.auto import tqdm

from scicon.assembly_context import AssemblyContext
from scicon.backbones import load_backbone
from scicon.backbones.params import BackboneParams
from scicon.goal import GOALS
from scicon.goal.base import ContradictionScorer

ZERO_SHOT_GOAL = "llm"  # the paper's zero-shot baseline (Table 1) is the backbone as teacher


def zero_shot_teacher(backbone: BackboneParams, seed: int) -> tuple[ContradictionScorer, AssemblyContext]:
    """The zero-shot goal built from its registry entry on the ``backbone`` section, and the
    context holding its model (close it when done).

    Its settings are fixed rather than read from ``evolve.settings.goal``: the baseline is
    the configured backbone itself, and the evaluate stage does not depend on evolve's
    params. ``min_mass`` 0 keeps every answer, so that every pair has a score to rank.
    """
    entry = GOALS.get(ZERO_SHOT_GOAL, "evaluate.zero_shot")
    settings = entry.validate_settings({"min_mass": 0.0, "backbone": None}, "evaluate.zero_shot")
    context = AssemblyContext(seed=seed, backbone_params=backbone, load_backbone=load_backbone)
    return entry.factory(settings, context), context


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
