"""The audit's statistics: published worked examples, and a panel whose figures are known by construction."""

from __future__ import annotations

import pytest

from scicon.annotation.agreement import fleiss_kappa, gwet_ac1, majority, unanimity
from scicon.annotation.intervals import bootstrap_ratio_interval, wilson_interval
from scicon.audit.annotations import Annotations, AnnotatorFiles, Judgment
from scicon.audit.figures import disagreements, score_audit
from scicon.audit.question import Answer
from scicon.records.audit import AuditItem
from tests.audit_fixtures import audit_params, example


def counts(ratings: list[list[int | None]], categories: list[int]) -> list[list[int]]:
    """Raw ratings (one row per item, one column per rater, None: not rated) as a count table."""
    return [[sum(r == c for r in row) for c in categories] for row in ratings]


# Gwet, "Handbook of Inter-Rater Reliability" (4th edition, 2014): four raters classify twelve
# subjects into five categories, and none of them rates every subject. The handbook reports
# p_a = 0.8182, p_e = 0.1903 and AC1 = 0.7754 for these ratings.
GWET_HANDBOOK_RATINGS = [
    [1, 1, None, 1],
    [2, 2, 3, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [2, 2, 2, 2],
    [1, 2, 3, 4],
    [4, 4, 4, 4],
    [1, 1, 2, 1],
    [2, 2, 2, 2],
    [None, 5, 5, 5],
    [None, None, 1, 1],
    [None, None, 3, None],
]


def test_gwet_ac1_reproduces_the_handbook_example_with_missing_ratings():
    table = counts(GWET_HANDBOOK_RATINGS, [1, 2, 3, 4, 5])
    assert gwet_ac1(table) == pytest.approx(0.7754, abs=5e-5)


def test_fleiss_kappa_reproduces_the_worked_example_of_fleiss_kappa():
    # The worked example of the Wikipedia article "Fleiss' kappa": 14 raters, 10 subjects,
    # 5 categories, kappa = 0.210.
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    assert fleiss_kappa(table) == pytest.approx(0.210, abs=5e-4)


def test_statistics_are_none_where_undefined_not_nan():
    assert fleiss_kappa([[3, 0], [3, 0]]) is None  # every rating in one category: chance agreement is 1
    assert gwet_ac1([[3, 0], [3, 0]]) == 1.0  # AC1 stays defined there (Gwet's point)
    assert gwet_ac1([[1, 0], [0, 1]]) is None  # one rating per item: no agreement to observe
    assert fleiss_kappa([[1, 0], [0, 1]]) is None
    assert unanimity([[1, 0]]) is None
    with pytest.raises(ValueError, match="same number of ratings"):
        fleiss_kappa([[2, 1], [1, 1]])


def test_majority_needs_more_than_half():
    assert majority([1, 1, 0]) == 1
    assert majority([0, 0, 1, 1, 0]) == 0
    assert majority([1, 0]) is None
    assert majority([]) is None


def test_wilson_interval_brackets_the_proportion_and_stays_in_range():
    low, high = wilson_interval(19, 20, 0.95)
    assert 0 < low < 0.95 < high <= 1
    assert wilson_interval(0, 0, 0.95) is None


def test_bootstrap_resamples_items_within_strata():
    agree, judged = [5, 5, 0, 0], [5, 5, 5, 5]
    plain = bootstrap_ratio_interval(agree, judged, resamples=500, level=0.95, seed=1)
    assert plain[0] < 0.5 < plain[1]
    assert plain == bootstrap_ratio_interval(agree, judged, resamples=500, level=0.95, seed=1)
    # within strata that are each constant, every resample has the same ratio
    stratified = bootstrap_ratio_interval(
        agree, judged, resamples=500, level=0.95, seed=1, strata=["a", "a", "b", "b"], weights=[1, 1, 3, 3]
    )
    assert stratified == pytest.approx((0.25, 0.25))
    assert bootstrap_ratio_interval([1], [1], resamples=10, level=0.95, seed=1) is None


# A panel of five on twenty items, built so that every figure is known:
#   A: 12 contradictions, all five say contradiction;
#   B:  3 contradictions, four say contradiction, one says not;
#   C:  1 contradiction, two say contradiction, three say not (the majority disputes it);
#   D:  4 non-contradictions, all five say not.
# Agreement: (60 + 12 + 2 + 20) / 100 = 0.94. Majority: 19 of 20 items agree; precision
# 15/16 for contradiction, 4/4 for non-contradiction. Unanimity: 16/20.
# Per-item agreement P_i: 1 (A, D), 12/20 (B), 8/20 (C): mean 18.2/20 = 0.91.
# Category shares: 74 contradiction and 26 not out of 100 ratings.
# Fleiss: p_e = 0.74² + 0.26² = 0.6152, kappa = (0.91 - 0.6152) / 0.3848.
# AC1:    p_e = 2 · 0.74 · 0.26 = 0.3848, AC1 = (0.91 - 0.3848) / 0.6152.
PANEL = ("ana", "ben", "chloe", "dev", "eli")
GROUPS = (("A", 12, 1, 5), ("B", 3, 1, 4), ("C", 1, 1, 2), ("D", 4, 0, 5))  # name, items, label, agreeing


def synthetic_panel() -> tuple[list[AuditItem], list[Judgment]]:
    items, judgments = [], []
    for name, size, label, agreeing in GROUPS:
        for index in range(size):
            row = example(f"{ord(name)}{index}", index, kind=1 if label else 0)
            item = AuditItem(
                item_id=f"item-{name.lower() * 2}{index:010x}", stratum=name, weight=1.0, example=row
            )
            items.append(item)
            for position, annotator in enumerate(PANEL):
                said = label if position < agreeing else 1 - label
                answer = Answer.CONTRADICTION if said else Answer.NOT_CONTRADICTION
                judgments.append(Judgment(annotator, item.item_id, answer, ""))
    return items, judgments


def annotations_of(judgments: list[Judgment]) -> Annotations:
    files = {}
    for judgment in judgments:
        report = files.setdefault(judgment.annotator, AnnotatorFiles(files=[f"{judgment.annotator}.csv"]))
        report.answers += 1
        report.unsure += judgment.answer is Answer.UNSURE
    return Annotations(judgments=judgments, annotators=files, files=[f"{name}.csv" for name in files])


def test_a_panel_built_to_known_figures_scores_them():
    items, judgments = synthetic_panel()
    metrics, votes = score_audit(items, annotations_of(judgments), {}, audit_params())
    assert metrics["status"] == "scored"
    assert metrics["agreement"] == pytest.approx(0.94)
    assert metrics["agreement_ci_low"] < 0.94 < metrics["agreement_ci_high"]
    assert metrics["majority_accuracy"] == pytest.approx(0.95)
    assert metrics["precision"]["contradiction"]["precision"] == pytest.approx(15 / 16)
    assert metrics["precision"]["non_contradiction"]["precision"] == 1.0
    reliability = metrics["reliability"]
    assert (reliability["items"], reliability["raters_per_item"]) == (20, 5)
    assert reliability["fleiss_kappa"] == pytest.approx((0.91 - 0.6152) / 0.3848, abs=1e-6)
    assert reliability["gwet_ac1"] == pytest.approx((0.91 - 0.3848) / 0.6152, abs=1e-6)
    assert reliability["unanimity"] == pytest.approx(0.8)
    assert metrics["disagreements"] == 1
    (disputed,) = disagreements(votes)
    assert disputed["item_id"].startswith("item-cc") and disputed["votes"]["not a contradiction"] == 3
    assert metrics["annotators"]["ana"]["agreement"] == 1.0  # the first rater always agrees
    assert metrics["annotators"]["eli"]["agreement"] == pytest.approx(16 / 20)  # the last dissents in B and C
    # equal weights: the build estimate is the sample figure
    assert metrics["build_estimate"]["agreement"] == pytest.approx(0.94)


def test_partial_and_unsure_answers_use_what_is_there():
    items, judgments = synthetic_panel()
    skipped = {items[0].item_id, items[1].item_id}
    kept = [j for j in judgments if not (j.annotator == "eli" and j.item_id in skipped)]
    # "dev" is unsure about the disputed C item instead of saying "not"
    disputed = next(item.item_id for item in items if item.stratum == "C")
    kept = [
        Judgment(j.annotator, j.item_id, Answer.UNSURE, "cannot tell")
        if (j.annotator, j.item_id) == ("dev", disputed)
        else j
        for j in kept
    ]
    metrics, _ = score_audit(items, annotations_of(kept), {}, audit_params())
    assert metrics["judgments"] == 100 - 2 - 1
    assert metrics["unsure"] == 1
    assert metrics["agreement"] == pytest.approx((94 - 2) / 97)  # the skipped A items were agreements
    assert metrics["agreement_unsure_as_disagreement"] == pytest.approx((94 - 2) / 98)
    assert metrics["annotators"]["eli"]["missing"] == 2
    assert metrics["annotators"]["dev"]["unsure"] == 1
    # reliability only on items all five judged decisively: 20 - 2 skipped - 1 unsure
    assert metrics["reliability"]["items"] == 17
    # C now has votes 2 contradiction / 2 not: a tie, no majority
    assert metrics["majority_ties"] == 1 and metrics["majority_items"] == 19
    assert metrics["majority_accuracy"] == 1.0


def test_one_annotator_has_agreement_but_no_reliability():
    items, judgments = synthetic_panel()
    alone = [j for j in judgments if j.annotator == "eli"]
    metrics, _ = score_audit(items, annotations_of(alone), {}, audit_params())
    assert metrics["agreement"] == pytest.approx((12 + 0 + 0 + 4) / 20)
    assert metrics["reliability"]["fleiss_kappa"] is None and metrics["reliability"]["gwet_ac1"] is None


def test_no_annotations_is_a_status_not_a_crash():
    items, _ = synthetic_panel()
    metrics, _ = score_audit(items, annotations_of([]), {"requested": 20}, audit_params())
    assert metrics["status"] == "no_annotations"
    assert metrics["sample"]["items"] == 20 and "agreement" not in metrics
