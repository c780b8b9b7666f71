"""The entailment judge in the pairs stage: its scorer, and the filter on its P(entailment).

The judge is the entailment stage's classifier folder (``pairs.entailment_model``), read by
the one classifier scorer (:class:`scicon.classifier.ContradictionClassifier`) with
``entailment`` as the scored class and the folder's calibration applied. Every pair is
scored sentence1 ⇒ sentence2 (for both kinds: the result or the earlier conclusion is the
evidence, the conclusion EvoNLI mutates is the claim), the score is recorded on the pair,
and with ``pairs.min_entailment`` set a pair below it is skipped with its score.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scicon.classifier import ENTAILMENT, ContradictionClassifier
from scicon.classifier_folder import UNTRAINED_MARKER
from scicon.errors import InputNotFoundError, ParamsError
from scicon.pairing.selectors import EntailmentScorer
from scicon.params import meets_threshold
from scicon.records.base import Skip
from scicon.records.pairs import Pair, PairKind

BELOW_MIN_ENTAILMENT = "below_min_entailment"


class EntailmentJudge:
    """Calibrated P(entailment) from the entailment stage's classifier folder."""

    def __init__(self, folder: str | Path) -> None:
        if not Path(folder).is_dir():
            raise InputNotFoundError(
                f"{folder}: entailment judge not found (pairs.entailment_model; the entailment stage "
                "trains it: `dvc repro entailment`)"
            )
        if (Path(folder) / UNTRAINED_MARKER).exists():
            raise ParamsError(
                f"{folder}: the entailment judge was not trained (entailment.train is false), but "
                "pairs.result_selector entailment or pairs.min_entailment needs it: set entailment.train true"
            )
        self.classifier = ContradictionClassifier(folder, ENTAILMENT)

    def entailment_probabilities(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self.classifier.contradiction_probabilities(pairs)


@dataclass
class EntailmentFilterResult:
    pairs: list[Pair]  # scored, at or above the threshold
    skipped: list[Skip]
    metrics: dict


def judge_pairs(
    pairs: Sequence[Pair], scorer: EntailmentScorer, min_entailment: float | None
) -> EntailmentFilterResult:
    """Every pair with its ``entailment`` score; those below ``min_entailment`` skipped (None: none)."""
    scores = (
        scorer.entailment_probabilities([(pair.sentence1, pair.sentence2) for pair in pairs]) if pairs else []
    )
    kept: list[Pair] = []
    skipped: list[Skip] = []
    scored: Counter[PairKind] = Counter()
    dropped: Counter[PairKind] = Counter()
    for pair, score in zip(pairs, scores, strict=True):
        pair = pair.model_copy(update={"entailment": round(float(score), 6)})
        scored[pair.kind] += 1
        if min_entailment is not None and not meets_threshold(pair.entailment, min_entailment):
            dropped[pair.kind] += 1
            skipped.append(
                Skip(
                    reason=BELOW_MIN_ENTAILMENT,
                    where=pair.pair_id,
                    detail=f"P(entailment) {pair.entailment:.4f} < pairs.min_entailment {min_entailment}",
                )
            )
            continue
        kept.append(pair)
    metrics = {
        "min_entailment": min_entailment,
        "per_kind": {
            kind.value: {
                "scored": scored[kind],
                "kept": scored[kind] - dropped[kind],
                "dropped": dropped[kind],
            }
            for kind in PairKind
        },
        "mean_entailment": round(sum(scores) / len(scores), 4) if scores else None,
    }
    return EntailmentFilterResult(kept, skipped, metrics)
