"""Negation cue: exactly one of the two sentences contains a negation word.

The one-line heuristic that a student trained on cross-form rule negatives was found to
have learnt instead of contradiction (docs/negatives.md, "Which form to train on"). The score is 1 or
0 (many ties: its ROC curve has a single corner). Negation words are
:mod:`scicon.negation`'s, so the cue and the ``hard`` benchmarks agree on what a
negation is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from scicon.evaluate.baselines import BASELINES
from scicon.negation import is_negation
from scicon.records.benchmark import BenchmarkPair

_WORD = re.compile(r"[\w']+")


def has_negation(text: str) -> bool:
    return any(is_negation(word) for word in _WORD.findall(text))


def negation_cue_scores(pairs: Sequence[BenchmarkPair]) -> list[float]:
    return [float(has_negation(p.sentence1) != has_negation(p.sentence2)) for p in pairs]


@BASELINES.register("negation_cue", description="1 when exactly one of the two sentences has a negation word")
def negation_cue(settings: None, seed: int):
    return negation_cue_scores
