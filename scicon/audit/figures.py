"""The audit's figures: the paper's section 5.1 numbers for a build, overall and per stratum field.

Every figure uses what is there, so partial annotation gives figures (with their counts):

- **agreement**: share of judgments (item × annotator, "unsure" left out) that equal the
  algorithmic label; per annotator with a Wilson interval, pooled with a bootstrap
  interval over items. ``agreement_unsure_as_disagreement`` is the conservative variant.
- **majority vote**: an item's majority is the label more than half of its judgments
  carry (ties have none and are counted). Majority accuracy is the share of items whose
  majority equals the algorithmic label (the paper's "majority-vote precision" on a sample
  of contradictions); precision per label is that share among the items the algorithm gave
  that label. Wilson intervals.
- **reliability** (Fleiss' κ, Gwet's AC1, unanimity) is computed on the items that every
  annotator judged, so κ, AC1 and unanimity describe one set of items and statsmodels'
  Fleiss' κ (which needs a constant number of ratings) applies. With one annotator there
  is no reliability to report.
- **build_estimate** weights items by their stratum's rows per sampled item, so a floor on
  small strata (``audit.min_per_stratum``) does not tilt the estimate of the build's
  quality; its intervals resample within strata.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scicon.annotation.agreement import fleiss_kappa, gwet_ac1, majority, unanimity
from scicon.annotation.controls import control_accuracy
from scicon.annotation.intervals import bootstrap_ratio_interval, share_with_interval
from scicon.audit.annotations import Annotations, Judgment
from scicon.audit.params import AuditParams
from scicon.audit.question import Answer
from scicon.audit.sample import LABEL_NAMES, field_value
from scicon.records.audit import AuditItem

DIGITS = 6


@dataclass(frozen=True)
class ItemVotes:
    """One sample item with the panel's judgments on it."""

    item: AuditItem
    labels: dict[str, int]  # annotator -> 0/1 (decisive judgments)
    unsure: int
    comments: dict[str, str]

    @property
    def label(self) -> int:
        return self.item.example.label

    @property
    def agreeing(self) -> int:
        return sum(vote == self.label for vote in self.labels.values())

    @property
    def majority(self) -> int | None:
        return majority(list(self.labels.values()))


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, DIGITS)


def _with_interval(name: str, value: float | None, interval: Sequence[float] | None) -> dict:
    return {
        name: _round(value),
        f"{name}_ci_low": _round(interval[0]) if interval else None,
        f"{name}_ci_high": _round(interval[1]) if interval else None,
    }


def _share(name: str, entry: dict) -> dict:
    """A share entry (:func:`scicon.annotation.intervals.share_with_interval`) as the audit's
    report writes it: the share and its bounds under the figure's name."""
    return _with_interval(name, entry["share"], entry["interval"])


def collect_votes(items: Sequence[AuditItem], judgments: Sequence[Judgment]) -> list[ItemVotes]:
    by_item: dict[str, list[Judgment]] = defaultdict(list)
    for judgment in judgments:
        by_item[judgment.item_id].append(judgment)
    votes = []
    for item in items:
        given = by_item.get(item.item_id, [])
        votes.append(
            ItemVotes(
                item=item,
                labels={j.annotator: j.answer.label for j in given if j.answer.label is not None},
                unsure=sum(j.answer is Answer.UNSURE for j in given),
                comments={j.annotator: j.comment for j in given if j.comment},
            )
        )
    return votes


def reliability(votes: Sequence[ItemVotes], panel: Sequence[str]) -> dict:
    """Fleiss' κ, Gwet's AC1 and unanimity over the items every panel annotator judged."""
    complete = [v for v in votes if all(name in v.labels for name in panel)]
    table = np.array(
        [[sum(label == category for label in v.labels.values()) for category in (1, 0)] for v in complete],
        dtype=float,
    ).reshape(-1, 2)
    enough = len(panel) >= 2 and len(complete) > 0
    return {
        "items": len(complete),
        "raters_per_item": len(panel),
        "fleiss_kappa": _round(fleiss_kappa(table)) if enough else None,
        "gwet_ac1": _round(gwet_ac1(table)) if enough else None,
        "unanimity": _round(unanimity(table)) if enough else None,
    }


def summary(votes: Sequence[ItemVotes], panel: Sequence[str], params: AuditParams) -> dict:
    """The figures of one set of items: agreement, majority vote and reliability."""
    judged = [v for v in votes if v.labels]
    judgments = sum(len(v.labels) for v in votes)
    agreeing = sum(v.agreeing for v in votes)
    with_majority = [v for v in votes if v.majority is not None]
    correct = sum(v.majority == v.label for v in with_majority)
    return {
        "items": len(votes),
        "items_judged": len(judged),
        "judgments": judgments,
        "unsure": sum(v.unsure for v in votes),
        **_with_interval(
            "agreement",
            agreeing / judgments if judgments else None,
            bootstrap_ratio_interval(
                [v.agreeing for v in votes],
                [len(v.labels) for v in votes],
                resamples=params.bootstrap_resamples,
                level=params.confidence_level,
                seed=params.seed,
            ),
        ),
        "majority_items": len(with_majority),
        "majority_ties": len(judged) - len(with_majority),
        **_share(
            "majority_accuracy",
            share_with_interval(correct, len(with_majority), params.confidence_level, DIGITS),
        ),
        "reliability": reliability(votes, panel),
    }


def _precision_per_label(votes: Sequence[ItemVotes], params: AuditParams) -> dict:
    result = {}
    for label, name in LABEL_NAMES.items():
        decided = [v for v in votes if v.label == label and v.majority is not None]
        hits = sum(v.majority == label for v in decided)
        result[name] = {
            "items": len(decided),
            **_share("precision", share_with_interval(hits, len(decided), params.confidence_level, DIGITS)),
        }
    return result


def _build_estimate(votes: Sequence[ItemVotes], params: AuditParams) -> dict:
    weights = [v.item.weight for v in votes]
    strata = [v.item.stratum for v in votes]
    agreeing = [v.agreeing for v in votes]
    judged = [len(v.labels) for v in votes]
    hits = [float(v.majority == v.label) if v.majority is not None else 0.0 for v in votes]
    decided = [float(v.majority is not None) for v in votes]

    def ratio(num: Sequence[float], den: Sequence[float]) -> float | None:
        total = sum(w * d for w, d in zip(weights, den, strict=True))
        return sum(w * n for w, n in zip(weights, num, strict=True)) / total if total else None

    def interval(num: Sequence[float], den: Sequence[float]) -> tuple[float, float] | None:
        return bootstrap_ratio_interval(
            num,
            den,
            resamples=params.bootstrap_resamples,
            level=params.confidence_level,
            seed=params.seed,
            weights=weights,
            strata=strata,
        )

    return {
        **_with_interval("agreement", ratio(agreeing, judged), interval(agreeing, judged)),
        **_with_interval("majority_accuracy", ratio(hits, decided), interval(hits, decided)),
    }


def _annotator_figures(
    name: str, votes: Sequence[ItemVotes], annotations: Annotations, params: AuditParams
) -> dict:
    report = annotations.annotators[name]
    answers = [(v.labels[name], v.label) for v in votes if name in v.labels]
    return {
        "answers": report.answers,
        "unsure": report.unsure,
        "missing": len(votes) - report.answers,
        "stale": report.stale,
        **_share("agreement", control_accuracy(answers, params.confidence_level, DIGITS)),
    }


def disagreements(votes: Sequence[ItemVotes]) -> list[dict]:
    """Items whose majority differs from the algorithmic label, then items without a majority."""
    rows = []
    for v in votes:
        if not v.labels or v.majority == v.label:
            continue
        example = v.item.example
        counts = Counter(v.labels.values())
        rows.append(
            {
                "item_id": v.item.item_id,
                "example_id": example.example_id,
                "pmid": example.pmid,
                "split": example.split,
                "generator": example.generator,
                "operator": example.operator,
                "mutation_type": example.mutation_type,
                "label": example.label,
                "majority": v.majority,
                "votes": {
                    Answer.CONTRADICTION.value: counts[1],
                    Answer.NOT_CONTRADICTION.value: counts[0],
                    Answer.UNSURE.value: v.unsure,
                },
                "sentence1": example.sentence1,
                "sentence2": example.sentence2,
                "comments": dict(sorted(v.comments.items())),
            }
        )
    rows.sort(key=lambda row: (row["majority"] is None, row["item_id"]))
    return rows


def score_audit(
    items: Sequence[AuditItem], annotations: Annotations, manifest: Mapping, params: AuditParams
) -> tuple[dict, list[ItemVotes]]:
    """``reports/audit.json`` for the sample ``items`` and the panel's ``annotations``."""
    votes = collect_votes(items, annotations.judgments)
    panel = sorted({name for v in votes for name in v.labels})
    sample = {
        "items": len(items),
        "requested": manifest.get("requested", len(items)),
        "build_rows": manifest.get("build_rows"),
        "strata": len(manifest.get("strata", {})) or len({item.stratum for item in items}),
    }
    answered = sum(report.answers for report in annotations.annotators.values())
    metrics: dict = {
        "status": "scored" if panel else ("no_annotations" if not answered else "no_decisive_answers"),
        "sample": sample,
        "annotations": {
            "files": len(annotations.files),
            "annotators": len(annotations.annotators),
            "answers": answered,
            "unsure": sum(report.unsure for report in annotations.annotators.values()),
            "stale": annotations.stale,
        },
    }
    if not panel:
        return metrics, votes
    overall = summary(votes, panel, params)
    judged_or_unsure = overall["judgments"] + overall["unsure"]
    agreeing = sum(v.agreeing for v in votes)
    metrics.update(overall)
    metrics["agreement_unsure_as_disagreement"] = _round(
        agreeing / judged_or_unsure if judged_or_unsure else None
    )
    metrics["precision"] = _precision_per_label(votes, params)
    metrics["build_estimate"] = _build_estimate(votes, params)
    metrics["disagreements"] = sum(1 for v in votes if v.majority is not None and v.majority != v.label)
    metrics["annotators"] = {
        name: _annotator_figures(name, votes, annotations, params) for name in annotations.annotators
    }
    for field in params.strata:
        groups: dict[str, list[ItemVotes]] = defaultdict(list)
        for v in votes:
            groups[field_value(v.item.example, field)].append(v)
        metrics[f"by_{field}"] = {
            value: summary(group, panel, params) for value, group in sorted(groups.items())
        }
    return metrics, votes
