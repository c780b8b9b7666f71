"""The evolve stage's metrics, computed from the traces (so resumed pairs count as searched then)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from scicon.annotation.intervals import share_with_interval
from scicon.backbones.cache import CachedBackbone, combined_metrics
from scicon.params import meets_threshold
from scicon.records.base import TargetLabel
from scicon.records.evolve import PairTrace, SearchStatus
from scicon.textdiff import words_changed


def evolve_metrics(
    traces: Sequence[PairTrace],
    thresholds,
    wall_seconds: float,
    backbones: Sequence[CachedBackbone],
    level: float,
) -> dict:
    """The evolve stage's metrics; per target label, the contradiction target at the top level."""
    metrics: dict = {}
    for target in TargetLabel:
        subset = [t for t in traces if t.target_label is target]
        if not subset:
            continue
        summary = _target_metrics(subset, thresholds, level)
        if target is TargetLabel.CONTRADICTION:
            metrics.update(summary)
        else:
            metrics[target.value] = summary
    metrics["wall_seconds"] = round(wall_seconds, 1)
    if backbones:
        metrics["backbone"] = combined_metrics(backbones)  # this run's work
        # The cost of the output itself comes from the traces, so pairs resumed from an
        # earlier run count with the calls they cost then.
        accepted = sum(t.accepted is not None for t in traces)
        requested = sum(t.backbone_calls for t in traces)
        computed = requested - sum(t.cache_hits for t in traces)
        metrics["computed_calls_per_pair"] = round(computed / len(traces), 2) if traces else None
        metrics["calls_per_accepted_pair"] = round(requested / accepted, 2) if accepted else None
        metrics["computed_calls_per_accepted_pair"] = round(computed / accepted, 2) if accepted else None
    return metrics


def _target_metrics(traces: Sequence[PairTrace], thresholds, level: float) -> dict:
    status = {s.value: sum(t.status is s for t in traces) for s in SearchStatus}
    attempted = status["succeeded"] + status["failed"]
    # With no attempted pair (all skipped: the originals already meet the target) the
    # rate is undefined, reported as null rather than as a 0% that never happened.
    success = share_with_interval(status["succeeded"], attempted, level)
    low, high = success["interval"] or (None, None)
    candidates = [c for t in traces for g in t.generations for m in g.members for c in m.candidates]
    proposed = [c for c in candidates if c.text is not None]
    sim = [c.similarity for c in proposed if c.similarity is not None]
    claim = [c.claim for c in proposed if c.claim is not None]
    confidence = [c.confidence for c in proposed if c.confidence is not None]
    accepted = [t.accepted for t in traces if t.accepted is not None]

    def rate(values, threshold):
        return round(sum(meets_threshold(v, threshold) for v in values) / len(values), 4) if values else None

    return {
        "pairs_tried": len(traces),
        "succeeded": status["succeeded"],
        "failed": status["failed"],
        "skipped": status["skipped"],
        "errors": status["error"],
        "attack_success_rate": success["share"],
        "attack_success_rate_ci_low": low,
        "attack_success_rate_ci_high": high,
        "contradiction_ratio": round(status["succeeded"] / len(traces), 4) if traces else 0.0,
        "candidates_proposed": len(candidates),
        "no_mutation_rate": round(1 - len(proposed) / len(candidates), 4) if candidates else None,
        # why candidates were turned down, by constraint name (edit constraints first, then the
        # filters, then '<score>_low_mass': the model gave no usable yes/no answer)
        "rejections": dict(sorted(Counter(c.rejected_by for c in candidates if c.rejected_by).items())),
        "similarity_pass_rate": rate(sim, thresholds.sim),
        "claim_pass_rate": rate(claim, thresholds.claim),
        "target_pass_rate": rate(confidence, thresholds.target),
        "mean_generations_to_success": round(sum(a.iteration + 1 for a in accepted) / len(accepted), 3)
        if accepted
        else None,
        "mean_words_changed": round(sum(words_changed(a.edits) for a in accepted) / len(accepted), 3)
        if accepted
        else None,
    }


def success_by_generation(traces: Sequence[PairTrace], generations: int) -> list[dict]:
    """Cumulative share of attempted pairs accepted by each of the search's ``generations``
    (a plot of the stage)."""
    attempted = [t for t in traces if t.status in (SearchStatus.SUCCEEDED, SearchStatus.FAILED)]
    rows = []
    for generation in range(1, generations + 1):
        accepted = sum(
            1 for t in attempted if t.accepted is not None and t.accepted.iteration + 1 <= generation
        )
        rows.append(
            {
                "generation": generation,
                "accepted": accepted,
                # undefined with no attempted pair, as the attack success rate
                "cumulative_success_rate": round(accepted / len(attempted), 4) if attempted else None,
            }
        )
    return rows
