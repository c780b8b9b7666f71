"""P(same topic): pairs sampled from the corpus, a calibrated cosine, a cache keyed by content."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from scicon.fitted.topic_model import (
    SAME_TOPIC_KINDS,
    TopicModelSettings,
    fit_topic_model,
    sample_pairs,
    select_abstracts,
)
from scicon.records.corpus import Role
from tests.params_defaults import section_values


def settings(**overrides) -> TopicModelSettings:
    return TopicModelSettings.model_validate(section_values("filter_models")["topic_model"] | overrides)


@pytest.fixture(scope="module")
def demo_model(demo_abstracts, tmp_path_factory):
    return fit_topic_model(demo_abstracts, settings(), cache_dir=tmp_path_factory.mktemp("topic-cache"))


def test_pairs_keep_a_conclusion_and_vary_only_its_partner(demo_abstracts):
    pairs = sample_pairs(select_abstracts(demo_abstracts, settings()), settings(), "fit")
    by_pmid = {a.pmid: a for a in demo_abstracts}
    positives = [p for p in pairs if p.same_topic]
    negatives = [p for p in pairs if not p.same_topic]
    assert positives and len(negatives) == len(positives)
    assert sorted(p.candidate for p in positives) == sorted(p.candidate for p in negatives)
    for pair in pairs:
        abstract = by_pmid[pair.pmid]
        texts = {s.text: s.role for s in abstract.sentences}
        assert texts[pair.candidate] is Role.CONCLUSIONS
        # same topic: a partner from the same abstract; otherwise never from it
        assert (pair.reference in texts) == (pair.kind in SAME_TOPIC_KINDS)
    assert {p.kind for p in negatives} == {"random_abstract", "lexical_neighbour"}
    assert sample_pairs(select_abstracts(demo_abstracts, settings()), settings(), "fit") == pairs  # seeded


def test_supporting_results_limits_which_results_share_a_conclusion_s_topic(demo_abstracts):
    one = sample_pairs(demo_abstracts, settings(supporting_results=1, pairs_per_abstract=50), "fit")
    every = sample_pairs(demo_abstracts, settings(supporting_results=None, pairs_per_abstract=50), "fit")
    count = sum(p.kind == "result_conclusion" for p in one)
    assert count < sum(p.kind == "result_conclusion" for p in every)
    conclusions = sum(len(a.indices(Role.CONCLUSIONS)) for a in demo_abstracts if a.indices(Role.RESULTS))
    assert count == conclusions  # exactly one supporting result per conclusion


def test_lexical_negatives_share_more_words_than_random_ones(demo_abstracts):
    pairs = sample_pairs(demo_abstracts, settings(lexical_negative_share=0.5), "fit")

    def overlap(pair) -> float:
        left, right = set(pair.reference.lower().split()), set(pair.candidate.lower().split())
        return len(left & right) / len(left | right)

    lexical = [overlap(p) for p in pairs if p.kind == "lexical_neighbour"]
    random_ = [overlap(p) for p in pairs if p.kind == "random_abstract"]
    assert sum(lexical) / len(lexical) > sum(random_) / len(random_)


def test_no_abstract_is_both_fitted_on_and_held_out(demo_model, demo_abstracts):
    fitted = demo_model.fitted
    assert fitted["abstracts"] + fitted["held_out_abstracts"] == len(
        select_abstracts(demo_abstracts, settings())
    )
    assert fitted["held_out_pairs"] == len(demo_model.held_out["kind"]) > 0


def test_probabilities_rank_same_topic_above_off_topic_and_meta_text(demo_model):
    conclusion = "Velanoxet reduced major bleeding compared with warfarin in adults with atrial fibrillation."
    result = "Major bleeding occurred in 4% of the velanoxet group and 9% of the warfarin group (P = 0.02)."
    same, contradiction, off_topic, meta = demo_model.probabilities(
        [result] * 4,
        [
            conclusion,
            "Velanoxet increased major bleeding compared with warfarin in adults with atrial fibrillation.",
            "Honey syrup relieved night-time cough in young children.",
            "Here is the rewritten sentence2:",
        ],
    )
    assert same > 0.5 and contradiction > 0.5  # topic, not agreement
    assert off_topic < 0.5 and meta < 0.5
    assert demo_model.probabilities([], []) == []


def test_quality_reports_calibration_and_the_operating_point(demo_model):
    quality = demo_model.quality(0.5)
    assert quality["roc_auc"] > 0.7
    assert 0.0 <= quality["brier"] <= 0.25
    for key in ("same_topic_pass_rate", "different_abstract_reject_rate", "lexical_neighbour_reject_rate"):
        assert 0.0 <= quality[key] <= 1.0
    strict = demo_model.quality(0.9)
    assert strict["same_topic_pass_rate"] <= quality["same_topic_pass_rate"]
    assert strict["different_abstract_reject_rate"] >= quality["different_abstract_reject_rate"]
    curve = demo_model.roc_curve()
    assert curve[0]["fpr"] == 0.0 and curve[-1]["tpr"] == 1.0


def bag_of_words_encoder(reference: str, texts, batch_size: int) -> np.ndarray:
    """A test double for the sentence encoder: hashed word counts, unit length."""
    vectors = np.zeros((len(texts), 64))
    for row, text in enumerate(texts):
        for word in text.lower().split():
            vectors[row, zlib.crc32(word.encode()) % 64] += 1.0
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


def test_a_rerun_on_the_same_abstracts_reads_the_cache(demo_abstracts, tmp_path, monkeypatch):
    monkeypatch.setattr("scicon.fitted.topic_model.encode", bag_of_words_encoder)
    usable = select_abstracts(demo_abstracts, settings())
    first = fit_topic_model(usable, settings(), cache_dir=tmp_path)
    assert len(list(tmp_path.glob("topic-*.json"))) == 1

    def no_encoding(*args, **kwargs):
        raise AssertionError("refitted instead of reading the cache")

    monkeypatch.setattr("scicon.fitted.topic_model.encode", no_encoding)
    # the same sentences in another order, and an operational setting changed
    again = fit_topic_model(list(reversed(usable)), settings(batch_size=8), cache_dir=tmp_path)
    assert again.calibration == first.calibration and again.held_out == first.held_out
    monkeypatch.setattr("scicon.fitted.topic_model.encode", bag_of_words_encoder)

    # anything that changes the fit is a new key: the sentences, or a setting
    fit_topic_model(usable[1:], settings(), cache_dir=tmp_path)
    fit_topic_model(usable, settings(method="isotonic"), cache_dir=tmp_path)
    assert len(list(tmp_path.glob("topic-*.json"))) == 3
    # and so does the code that samples and fits
    monkeypatch.setattr("scicon.fitted.base.fitting_code_digest", lambda module: "changed")
    fit_topic_model(usable, settings(), cache_dir=tmp_path)
    assert len(list(tmp_path.glob("topic-*.json"))) == 4


def test_too_few_abstracts_is_an_input_error(demo_abstracts, tmp_path):
    from scicon.errors import InputFormatError

    with pytest.raises(InputFormatError, match="two abstracts or more"):
        fit_topic_model(demo_abstracts[:2], settings(), cache_dir=tmp_path)
