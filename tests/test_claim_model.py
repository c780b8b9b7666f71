"""P(claim): learnt from roles or a labelled file, calibrated on held-out abstracts, meta-text low."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scicon.errors import InputFormatError, InputNotFoundError, ParamsError
from scicon.fitted.claim_examples import (
    LabelledSentence,
    examples_from_roles,
    meta_text_examples,
    read_labelled_claims,
    reporting_examples,
    without_reporting_claims,
)
from scicon.fitted.claim_model import ClaimModelSettings, fit_claim_model, training_examples
from scicon.params import validate_section
from scicon.records.corpus import Role
from tests.params_defaults import section_values


def settings(**overrides) -> ClaimModelSettings:
    return ClaimModelSettings.model_validate(section_values("filter_models")["claim_model"] | overrides)


@pytest.fixture(scope="module")
def demo_model(demo_abstracts, tmp_path_factory):
    return fit_claim_model(demo_abstracts, settings(), cache_dir=tmp_path_factory.mktemp("claim-cache"))


def test_roles_label_claims_and_leave_unlisted_roles_unlabelled(demo_abstracts):
    examples = examples_from_roles(demo_abstracts, [Role.CONCLUSIONS], [Role.BACKGROUND, Role.METHODS])
    by_role = {e.role: e.claim for e in examples}
    assert by_role[Role.CONCLUSIONS] is True and by_role[Role.METHODS] is False
    assert by_role[Role.RESULTS] is None  # scored in the report, never trained on


def test_meta_text_examples_come_from_the_prompts_and_the_framing_list():
    texts = meta_text_examples()
    assert "Write only sentence2 as an answer." in texts
    assert "Our goal is to get contradictory sentences." in texts  # the field filled in
    assert "Answer:" in texts and not any(text.startswith("#") or "{" in text for text in texts)


def test_conclusions_score_above_methods_and_meta_text_scores_low(demo_model):
    conclusion, method, meta = demo_model.probabilities(
        [
            "Velanoxet reduced major bleeding compared with warfarin in adults with atrial fibrillation.",
            "We randomised 120 adults with atrial fibrillation to velanoxet or warfarin.",
            "Here is the rewritten sentence2:",
        ]
    )
    assert conclusion > method
    assert meta < 0.5 and meta < conclusion
    assert demo_model.probabilities([]) == []


def test_quality_is_measured_on_held_out_abstracts(demo_model):
    quality = demo_model.quality(0.9)
    assert quality["roc_auc"] > 0.8
    assert set(quality["pass_rate_by_role"]) <= {role.value for role in Role}
    assert quality["fitted_on"]["meta_text_negatives"] == len(meta_text_examples())
    assert 0 < quality["fitted_on"]["held_out_sentences"] < quality["fitted_on"]["sentences"]
    assert quality["threshold_for_recall_0_9"] is not None


def test_meta_text_negatives_are_what_keeps_framing_low(demo_abstracts, tmp_path):
    framing = ["Here is the rewritten sentence2:", "Answer:", "I cannot help with that request."]
    with_meta = fit_claim_model(demo_abstracts, settings(), cache_dir=tmp_path).probabilities(framing)
    without = fit_claim_model(demo_abstracts, settings(meta_text_negatives=False), cache_dir=tmp_path)
    assert all(w < wo for w, wo in zip(with_meta, without.probabilities(framing), strict=True))


def test_reporting_lines_are_non_claims_and_a_conclusion_like_them_is_no_claim_example(
    demo_abstracts, tmp_path
):
    examples = training_examples(demo_abstracts, settings())
    changed, count = without_reporting_claims(examples, reporting_examples(), 0.3)
    unlabelled = [e.text for e, c in zip(examples, changed, strict=True) if e.claim and c.claim is None]
    # the demo files its three registrations under CONCLUSIONS: they are no evidence of a claim
    assert count == 3 and all(text.startswith("Trial registration: DEMO-REG-") for text in unlabelled)
    registration = "Trial registration: DEMO-REG-0007."
    plain = fit_claim_model(demo_abstracts, settings(), cache_dir=tmp_path)
    reporting = fit_claim_model(demo_abstracts, settings(reporting_negatives=True), cache_dir=tmp_path)
    assert plain.probabilities([registration])[0] > 0.5  # learnt from the roles: a conclusion
    assert reporting.probabilities([registration])[0] < 0.05
    assert reporting.quality(0.1)["fitted_on"]["reporting_negatives"] == len(reporting_examples())


def test_evaluate_reports_precision_recall_and_the_recall_threshold(demo_model):
    examples = [
        LabelledSentence("Velanoxet reduced major bleeding in adults with atrial fibrillation.", True, "a"),
        LabelledSentence("Honey syrup relieved night-time cough in children.", True, "b"),
        LabelledSentence("We randomised 120 adults to velanoxet or warfarin.", False, "a"),
        LabelledSentence("Children received honey syrup or placebo at night.", False, "b"),
    ]
    report = demo_model.evaluate(examples, threshold=0.5)
    assert report["examples"] == 4 and report["positives"] == 2
    assert {"roc_auc", "precision", "recall", "threshold_for_recall_0_9", "precision_at_recall_0_9"} <= set(
        report
    )
    assert report["recall"] in (0.0, 0.5, 1.0)


def test_a_rerun_reads_the_cache_and_a_change_refits(demo_abstracts, tmp_path, monkeypatch):
    first = fit_claim_model(demo_abstracts, settings(), cache_dir=tmp_path)

    def no_fit(*args, **kwargs):
        raise AssertionError("refitted instead of reading the cache")

    monkeypatch.setattr("scicon.fitted.claim_model._fit", no_fit)
    again = fit_claim_model(demo_abstracts, settings(batch_size=1), cache_dir=tmp_path)
    sentences = ["Velanoxet reduced major bleeding.", "Answer:"]
    assert again.probabilities(sentences) == first.probabilities(sentences)
    monkeypatch.undo()
    fit_claim_model(demo_abstracts, settings(regularization=0.5), cache_dir=tmp_path)
    monkeypatch.setattr("scicon.fitted.base.fitting_code_digest", lambda module: "changed")
    fit_claim_model(demo_abstracts, settings(), cache_dir=tmp_path)
    assert len(list(tmp_path.glob("claim-*.joblib"))) == 3


# ---- labelled claim files --------------------------------------------------------------------

CLAIM_ABSTRACTS = [
    (
        "Velanoxet is an oral anticoagulant.",
        "We randomised adults to velanoxet or warfarin.",
        "Velanoxet reduced major bleeding compared with warfarin.",
    ),
    (
        "Cough is common after colds.",
        "Children received honey or placebo at night.",
        "Honey relieved night-time cough in children.",
    ),
]


def write_claims_file(path: Path, copies: int = 1) -> Path:
    """The claims JSON-lines format: one abstract per line, its sentences and 0/1 string labels."""
    with open(path, "w", encoding="utf-8") as handle:
        for copy in range(copies):
            for number, sentences in enumerate(CLAIM_ABSTRACTS):
                record = {
                    "paper_id": 1000 * copy + number,
                    "sentences": list(sentences),
                    "labels": ["0", "0", "1"],
                    "title": "fictional",
                }
                handle.write(json.dumps(record) + "\n")
    return path


def test_claims_json_lines_keep_each_abstract_as_one_group(tmp_path):
    examples = read_labelled_claims(write_claims_file(tmp_path / "claims.json"))
    assert [e.claim for e in examples] == [False, False, True] * 2
    assert [e.group for e in examples] == ["0"] * 3 + ["1"] * 3


def test_sentence_label_jsonl_and_csv_are_read(tmp_path):
    jsonl = tmp_path / "claims.jsonl"
    jsonl.write_text(
        '{"sentence": "Velanoxet reduced bleeding.", "label": 1, "group": "a"}\n'
        '{"sentence": "We enrolled adults.", "label": false}\n',
        encoding="utf-8",
    )
    assert [(e.claim, e.group) for e in read_labelled_claims(jsonl)] == [(True, "a"), (False, "line 2")]
    table = tmp_path / "claims.csv"
    table.write_text('sentence,label\n"Honey relieved cough, at night.",yes\nWe enrolled children.,0\n')
    assert [(e.text, e.claim) for e in read_labelled_claims(table)] == [
        ("Honey relieved cough, at night.", True),
        ("We enrolled children.", False),
    ]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "bad.jsonl",
            '{"sentence": "A.", "label": 1}\n{"sentence": "B.", "label": "maybe"}\n',
            r"bad.jsonl:2: label",
        ),
        (
            "bad.json",
            '{"sentences": ["A.", "B."], "labels": ["1"]}\n',
            r"bad.json:1: 'sentences' and 'labels'",
        ),
        ("bad.jsonl", "not json\n", r"bad.jsonl:1: not valid JSON"),
        ("bad.jsonl", '{"text": "A."}\n', r"bad.jsonl:1: expected 'sentences'"),
        ("bad.csv", "text,claim\nA.,1\n", r"bad.csv:1: needs a header"),
    ],
)
def test_malformed_labelled_files_name_file_and_line(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputFormatError, match=message):
        read_labelled_claims(path)


def test_a_missing_labelled_file_is_named(tmp_path):
    with pytest.raises(InputNotFoundError, match="nowhere.json"):
        read_labelled_claims(tmp_path / "nowhere.json")


def test_a_labelled_file_replaces_the_roles(demo_abstracts, tmp_path):
    path = write_claims_file(tmp_path / "claims.json", copies=40)
    chosen = settings(labelled_file=str(path))
    examples = training_examples(demo_abstracts, chosen)
    assert {e.role for e in examples} == {None}  # nothing from the corpus
    model = fit_claim_model(demo_abstracts, chosen, cache_dir=tmp_path / "cache")
    claim, method = model.probabilities(
        ["Honey relieved night-time cough in children.", "We enrolled adults."]
    )
    assert claim > method
    assert model.quality(0.9)["fitted_on"]["source"] == str(path)


def test_max_sentences_keeps_whole_abstracts(demo_abstracts):
    examples = training_examples(demo_abstracts, settings(max_sentences=50, meta_text_negatives=False))
    assert 0 < len(examples) <= 50
    groups = {e.group for e in examples}
    assert len(examples) == sum(len(a.sentences) for a in demo_abstracts if a.pmid in groups)


def test_settings_reject_a_role_on_both_sides():
    values = section_values("filter_models")["claim_model"] | {
        "claim_roles": ["CONCLUSIONS"],
        "non_claim_roles": ["CONCLUSIONS"],
    }
    with pytest.raises(ParamsError, match="both claim_roles and non_claim_roles"):
        validate_section(ClaimModelSettings, values, "claim_model.")
