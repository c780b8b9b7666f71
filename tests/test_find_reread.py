"""The finder's verifier re-reading its best-ranked pairs: the top ``find.verifier_top`` ranked
again by the verifier, the rest in the classifier's order, an untrained verifier off, the cost
in the report, the verifier's score on the page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scicon.classifier import ContradictionClassifier
from scicon.classifier_folder import write_untrained
from scicon.errors import InputNotFoundError, ParamsError
from scicon.find.checks import Comparison
from scicon.find.page import render_page
from scicon.find.pipeline import (
    caching_encoder,
    finder_models,
    finder_verifier,
    read_outputs,
    run_find,
    write_outputs,
)
from scicon.find.run import Candidate, Verifier, find_contradictions, reread
from scicon.records.find import Claim
from tests.test_find import _claim, _params, _topic
from tests.tiny_models import save_tiny_bert

THREE_WAY = {0: "entailment", 1: "neutral", 2: "contradiction"}
# one question, each claim a study of its own, every pair comparable and scored; each claim of
# its own length, so that the tiny models below score each pair and each order differently
TEXTS = (
    "Drug alpha lowered blood pressure.",
    "Drug alpha raised the blood pressure.",
    "Drug alpha did not lower blood pressure.",
    "Drug alpha did not reduce the blood pressure.",
    "Drug alpha improved blood pressure in adults with hypertension.",
    "Drug alpha worsened blood pressure and mortality in older adults.",
    "Drug alpha lowered blood pressure and pain in adults with hypertension.",
)
TOP = 4


def _scrambled(folder: Path, labels: dict[int, str], seed: int) -> Path:
    """A tiny BERT classifier folder (save_tiny_bert's) with large random weights: its initial ones
    score every pair alike, these score each pair by no particular rule, as a trained one would."""
    import torch
    from transformers import AutoModelForSequenceClassification

    save_tiny_bert(folder, labels, seed=seed)
    model = AutoModelForSequenceClassification.from_pretrained(folder)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for weight in model.parameters():
            weight.copy_(torch.randn(weight.shape, generator=generator) * 0.5)
    model.save_pretrained(folder)
    return folder


def _claims() -> list[Claim]:
    return [Claim(claim_id=f"c{i}", text=text, group=f"s{i}") for i, text in enumerate(TEXTS)]


def test_the_best_ranked_scored_pairs_are_read_plain_in_both_orders_and_ranked_again_above_the_rest():
    claims = [Claim(claim_id=f"c{i}", text=f"Claim {i}.", group=f"s{i}") for i in range(5)]
    order = [
        Candidate(0, 1, 0.9, score_ab=0.8, score_ba=0.8),
        Candidate(0, 2, 0.9, score_ab=0.7, score_ba=0.7),
        Candidate(1, 2, 0.9, score_ab=0.6, score_ba=0.6),
        Candidate(2, 3, 0.9, score_ab=0.5, score_ba=0.5),
        Candidate(3, 4, 0.9, same_topic=0.9, comparison=Comparison((), ("x",))),  # not scored
    ]
    # the verifier is surest of the pairs with claim 2, and reads B then A as A then B
    surest = {"Claim 2.": 0.9, "Claim 1.": 0.2}
    asked = []

    def verify(pairs):
        asked.extend(pairs)
        return [max(surest.get(a, 0.1), surest.get(b, 0.1)) for a, b in pairs]

    again, read = reread(claims, order, verify, _params(verifier_top=3, verifier_rank="verifier"))
    assert read == 6 and asked[:3] == [
        ("Claim 0.", "Claim 1."),
        ("Claim 0.", "Claim 2."),
        ("Claim 1.", "Claim 2."),
    ]
    assert asked[3:] == [(b, a) for a, b in asked[:3]]
    # (0, 2) and (1, 2) tie on the verifier's 0.9: they keep the classifier's order; (2, 3) was
    # not among the 3 best and stays below, with the unscored pair after it
    assert [(c.first, c.second) for c in again] == [(0, 2), (1, 2), (0, 1), (2, 3), (3, 4)]
    assert again[0].verifier_score == pytest.approx(0.9) and again[3].verifier_ab is None
    mean = [
        Candidate(c.first, c.second, c.cosine, score_ab=c.score_ab, score_ba=c.score_ba) for c in order[:4]
    ]
    again, _ = reread(claims, mean, verify, _params(verifier_top=3, verifier_rank="mean"))
    # mean: (0, 2) 0.8, (1, 2) 0.75, (0, 1) 0.5
    assert [(c.first, c.second) for c in again] == [(0, 2), (1, 2), (0, 1), (2, 3)]
    assert again[2].ranked_by == pytest.approx((0.8 + 0.2) / 2)
    # more to re-read than was scored: every scored pair, never an unscored one
    asked.clear()
    again, read = reread(claims, order, verify, _params(verifier_top=100))
    assert read == 8 and again[-1].verifier_ab is None


@pytest.fixture(scope="module")
def reruns(tmp_path_factory, demo_abstracts):
    """One set of fitted models on the demo corpus and tiny random classifiers (the scores are
    arbitrary, the ranking by them is not): the re-read off (untrained), absent, and on."""
    root = tmp_path_factory.mktemp("reread")
    classifier = _scrambled(root / "classifier", {0: "non_contradiction", 1: "contradiction"}, seed=1)
    verifier = _scrambled(root / "verifier", THREE_WAY, seed=3)
    write_untrained(root / "untrained", "verifier.train is false")
    off = _params(
        classifier=str(classifier),
        verifier=str(root / "untrained"),
        verifier_top=TOP,
        verifier_rank="verifier",
        min_same_topic=0.0,
        min_claim=0.0,
        flag_rate=0.5,
    )
    on = off.model_copy(update={"verifier": str(verifier)})
    claims = _claims()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCICON_CACHE_DIR", str(root / "cache"))
        models = finder_models(off, _topic(), _claim(off), demo_abstracts)
        encoder = caching_encoder(_topic())
        steps = (encoder, models.same_topic, models.score, models.claim_probability)
        runs = {
            "untrained": find_contradictions(claims, off, *steps, models.verifier),
            "no verifier": find_contradictions(claims, off, *steps),
            "mean": find_contradictions(
                claims, on.model_copy(update={"verifier_rank": "mean"}), *steps, finder_verifier(on)
            ),
            "verifier": run_find(on, _topic(), _claim(on), demo_abstracts, claims),
        }
    return root, on, runs, off


def _without_timings(report: dict) -> dict:
    return {key: value for key, value in report.items() if key not in ("timings", "reread")}


def test_an_untrained_verifier_turns_the_re_read_off_and_changes_nothing(reruns):
    root, _, runs, params = reruns
    untrained, absent = runs["untrained"], runs["no verifier"]
    assert untrained.pairs == absent.pairs and untrained.groups == absent.groups
    assert _without_timings(untrained.report) == _without_timings(absent.report)
    assert not any(pair.verifier for pair in untrained.pairs)
    off = untrained.report["reread"]
    assert off["off"] == f"{root / 'untrained'} holds no trained verifier (verifier.train is false)"
    assert off["pairs"] == off["sentence_pairs_read"] == 0 and off["sentence_pairs_per_second"] is None
    assert "reread" not in untrained.report["timings"]["seconds"]
    # the file and the page are what they were before the re-read existed
    write_outputs(untrained, params, root / "off", root / "off.html")
    assert '"verifier"' not in (root / "off" / "contradictions.jsonl").read_text(encoding="utf-8")
    assert "re-read" not in (root / "off.html").read_text(encoding="utf-8")


def test_a_trained_verifier_reorders_the_top_by_its_score_and_leaves_the_rest_in_the_cheap_order(reruns):
    root, params, runs, _ = reruns
    cheap, again = runs["untrained"], runs["verifier"]
    scored = [pair for pair in cheap.pairs if pair.score is not None]
    assert len(scored) > TOP
    top = again.pairs[:TOP]
    assert {pair.pair_id for pair in top} == {pair.pair_id for pair in cheap.pairs[:TOP]}
    assert [pair.pair_id for pair in top] != [pair.pair_id for pair in cheap.pairs[:TOP]]
    assert [pair.verifier.ranked_by for pair in top] == sorted(
        (pair.verifier.ranked_by for pair in top), reverse=True
    )
    assert again.pairs[TOP:] == cheap.pairs[TOP:]
    # flags, scores and stance groups stay the classifier's
    cheap_by_id = {pair.pair_id: pair for pair in cheap.pairs}
    for pair in top:
        assert (pair.score, pair.flagged) == (
            cheap_by_id[pair.pair_id].score,
            cheap_by_id[pair.pair_id].flagged,
        )
    assert again.groups == cheap.groups
    # the verifier read the plain pair in both orders: its own scores, folder read directly
    verifier = ContradictionClassifier(params.verifier)
    texts = [(pair.a.text, pair.b.text) for pair in top]
    ab = verifier.contradiction_probabilities(texts)
    ba = verifier.contradiction_probabilities([(b, a) for a, b in texts])
    for pair, first, second in zip(top, ab, ba, strict=True):
        assert pair.verifier.score_ab == pytest.approx(first, abs=1e-6)
        assert pair.verifier.score_ba == pytest.approx(second, abs=1e-6)
        assert pair.verifier.ranked_by == pytest.approx((first + second) / 2, abs=1e-6)
    mean = runs["mean"].pairs[:TOP]
    assert {pair.pair_id for pair in mean} == {pair.pair_id for pair in top}
    for pair in mean:
        assert pair.verifier.ranked_by == pytest.approx((pair.score + pair.verifier.score) / 2, abs=1e-6)
    assert [pair.verifier.ranked_by for pair in mean] == sorted(
        (pair.verifier.ranked_by for pair in mean), reverse=True
    )


def test_the_report_times_the_re_read_and_prices_every_scored_pair_at_its_rate(reruns):
    _, params, runs, _ = reruns
    report = runs["verifier"].report
    reread = report["reread"]
    assert reread["verifier"] == params.verifier and reread["off"] is None
    assert (reread["top"], reread["rank"]) == (TOP, "verifier")
    assert reread["pairs"] == TOP and reread["sentence_pairs_read"] == 2 * TOP
    assert reread["seconds"] > 0 and reread["sentence_pairs_per_second"] > 0
    assert report["timings"]["seconds"]["reread"] > 0
    every = reread["every_scored_pair"]
    assert every["sentence_pairs"] == 2 * report["scored"]
    assert every["classifier_seconds"] > 0 and every["verifier_seconds_estimated"] > 0
    # at the reported rate, up to the rounding of the figures (seconds of a few milliseconds
    # rounded to 3 decimals are too coarse to price from)
    assert every["verifier_seconds_estimated"] == pytest.approx(
        every["sentence_pairs"] / reread["sentence_pairs_per_second"], rel=0.01, abs=0.0006
    )


def test_the_file_keeps_the_verifier_scores_and_the_page_shows_them(reruns, tmp_path):
    _, params, runs, _ = reruns
    result = runs["verifier"]
    write_outputs(result, params, tmp_path / "out", tmp_path / "find.html")
    rows = [json.loads(line) for line in (tmp_path / "out" / "contradictions.jsonl").read_text().splitlines()]
    assert ["verifier" in row for row in rows] == [rank <= TOP for rank in range(1, len(rows) + 1)]
    assert read_outputs(tmp_path / "out")[0] == result.pairs
    page = render_page(result.pairs, result.groups, result.report, {}, 50)
    assert page.count("verifier P(contradiction) ") == TOP
    assert f"{result.pairs[0].verifier.score:.3f}" in page
    assert f"re-read the {TOP} best-ranked scored pairs, which come first, ranked by its score" in page


def test_a_missing_verifier_folder_stops_and_one_trained_on_marked_edits_is_refused(tmp_path):
    with pytest.raises(InputNotFoundError, match="find.verifier: .*absent not found"):
        finder_verifier(_params(verifier=str(tmp_path / "absent")))
    assert finder_verifier(_params(verifier=str(tmp_path / "absent"), verifier_top=0)) == Verifier(
        None, "find.verifier_top is 0"
    )
    folder = save_tiny_bert(tmp_path / "judge", THREE_WAY)
    (folder / "scicon_classifier.json").write_text(json.dumps({"edit_marking": "bracketed"}))
    with pytest.raises(ParamsError, match="find.verifier: .* trained on marked edits"):
        finder_verifier(_params(verifier=str(folder)))


def test_the_healthver_harness_re_reads_with_the_verifier_it_is_given_and_prices_each_setting(
    reruns, demo_abstracts, tmp_path
):
    from perf.find_dev import main
    from scicon.io import write_jsonl

    root, params, _, _ = reruns
    healthver = tmp_path / "healthver_dev.csv"
    rows = ["claim,question,evidence,label"]
    for text in TEXTS:
        label = "Supports" if "not" not in text and "raised" not in text else "Refutes"
        rows.append(f'"{text}",Does drug alpha lower blood pressure?,"Alpha lowered blood pressure.",{label}')
    healthver.write_text("\n".join(rows) + "\n", encoding="utf-8")
    abstracts = tmp_path / "abstracts.jsonl"
    write_jsonl(abstracts, demo_abstracts)
    out = tmp_path / "find_dev.json"
    common = f"min_claim=0,min_same_topic=0,verifier_top={TOP},verifier_rank=verifier"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCICON_CACHE_DIR", str(root / "cache"))
        main(
            [
                *("--healthver", str(healthver), "--abstracts", str(abstracts)),
                *("--classifier", params.classifier, "--verifier", params.verifier),
                *("--setting", f"re-read:{common}", "--setting", f"off:{common},verifier_top=0"),
                *("--out", str(out), "--run-out", str(tmp_path / "runs")),
            ]
        )
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert figures["verifier"] == params.verifier and figures["verifier_pairs_per_second"] > 0
    on, off = (figures["settings"][name]["candidates"] for name in ("re-read", "off"))
    assert on["reread"] == {"pairs": TOP, "off": None}
    assert off["reread"] == {"pairs": 0, "off": "find.verifier_top is 0"}
    # each setting priced as if the verifier read every pair it scored, whether it re-read or not
    for setting in (on, off):
        assert setting["seconds"]["verifier_scoring_every_scored_pair_at_measured_rate"] == pytest.approx(
            setting["pairs_scored_both_orders"] / figures["verifier_pairs_per_second"], abs=0.1
        )
    report = json.loads((tmp_path / "runs" / "re-read" / "report.json").read_text(encoding="utf-8"))
    assert report["reread"]["pairs"] == TOP
