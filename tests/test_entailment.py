"""The entailment judge: labelled sets with entailment as the positive class, and the stage."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from scicon.classifier import ENTAILMENT, ContradictionClassifier
from scicon.classifier_folder import UNTRAINED_MARKER
from scicon.entailment.params import EntailmentParams
from scicon.entailment.train import entailment_data
from scicon.errors import InputFormatError, InputNotFoundError, ParamsError
from scicon.labelled.candidates import labelled_candidates
from scicon.pairing.entailment import EntailmentJudge
from scicon.readers.evidence_inference import CLAIM_KINDS
from scicon.stage import run_stage
from stages import entailment as stage
from tests.params_defaults import PARAMS_FILE, section
from tests.test_labelled import MNLI
from tests.test_labelled import ROOT as LABELLED_ROOT

BENCHMARKS = Path(__file__).parent / "fixtures" / "benchmarks"
# a table with contradiction-or-not labels only: no way to tell entailment from neutral
BINARY_CSV = {
    "kind": "csv",
    "path": str(BENCHMARKS / "generic.csv"),
    "options": {
        "sentence1": "premise",
        "sentence2": "hypothesis",
        "label": "verdict",
        "contradiction": ["C"],
        "delimiter": ";",
        "group": "premise",
    },
    "weight": 1.0,
    "cap": None,
}
SHORT_TRAINING = {"max_steps": 3, "eval_steps": 3, "logging_steps": 1, "max_length": 48}


def test_entailment_is_label_one_and_neutral_and_contradiction_are_label_zero():
    params = section("entailment", EntailmentParams, labelled={"mnli": MNLI})
    candidates, counts = labelled_candidates(params, str(LABELLED_ROOT), positive=ENTAILMENT)
    assert counts == {"mnli": 9}
    by_hypothesis = {c.hypothesis: c.label for c in candidates}
    assert by_hypothesis["The clinic opens in the morning on weekdays."] == 1  # entailment
    assert by_hypothesis["The clinic is closed on every weekday."] == 0  # contradiction
    assert by_hypothesis["The clinic has a new director."] == 0  # neutral
    # the teacher's view of the same file is unchanged: contradiction is label 1
    teacher_view, _ = labelled_candidates(params, str(LABELLED_ROOT))
    assert {c.hypothesis: c.label for c in teacher_view}["The clinic is closed on every weekday."] == 1


def test_the_judge_keeps_the_evidence_first_the_claim_second():
    params = section("entailment", EntailmentParams, labelled={"mnli": MNLI}, dev_fraction=0.4)
    data = entailment_data(params, str(LABELLED_ROOT))
    premises = {"The clinic opens at eight every weekday."}
    premises |= {"Nurses recorded blood pressure twice, morning and evening."}
    premises |= {"The trial enrolled two hundred adults."}
    examples = data.dataset.examples
    assert len(examples) == 9 and all(e.sentence1 in premises for e in examples)


def test_a_labelled_set_without_three_way_labels_is_an_error_naming_the_set():
    params = section("entailment", EntailmentParams, labelled={"verdicts": BINARY_CSV})
    with pytest.raises(
        InputFormatError, match=r"entailment\.labelled\.verdicts \(csv: .*generic\.csv\).*three-way"
    ):
        labelled_candidates(params, None, positive=ENTAILMENT, section="entailment")


@pytest.mark.slow
def test_the_stage_trains_a_calibrated_judge_whose_classes_are_named(tmp_path):
    params = yaml.safe_load(PARAMS_FILE.read_text())
    params["labelled_root"] = str(LABELLED_ROOT)
    params["entailment"]["train"] = True
    params["entailment"]["labelled"] = {"mnli": MNLI}
    params["entailment"]["dev_fraction"] = 0.4
    params["entailment"]["training"].update(SHORT_TRAINING)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    out = tmp_path / "out"
    argv = [
        "--params", str(tmp_path / "params.yaml"),
        "--model", str(out / "entailment"),
        "--metrics", str(out / "headline.json"),
        "--figures", str(out / "entailment.json"),
        "--loss-plot", str(out / "loss.csv"),
        "--dev-plot", str(out / "dev.csv"),
    ]  # fmt: skip
    stage.main(stage.parser().parse_args(argv))

    metrics = json.loads((out / "entailment.json").read_text())
    assert metrics["training"]["steps"] == 3 and metrics["labelled"] == {"mnli": 9}
    assert metrics["labels"] == {"0": "non_entailment", "1": "entailment"}
    assert sum(metrics["entailments"].values()) == 3
    assert 0.0 <= metrics["dev"]["raw"]["roc_auc"] <= 1.0
    assert (out / "loss.csv").is_file() and (out / "dev.csv").is_file()

    config = json.loads((out / "entailment" / "config.json").read_text())
    assert config["id2label"] == {"0": "non_entailment", "1": "entailment"}
    assert (out / "entailment" / "calibration.json").is_file()
    # the folder has no contradiction class; the scorer finds entailment by name, calibrated
    with pytest.raises(InputFormatError, match="no label named 'contradiction'"):
        ContradictionClassifier(out / "entailment")
    judge = ContradictionClassifier(out / "entailment", ENTAILMENT)
    pair = ("The trial enrolled two hundred adults.", "The trial included adults.")
    (raw,) = judge.raw_contradiction_probabilities([pair])
    (calibrated,) = judge.contradiction_probabilities([pair])
    assert calibrated == pytest.approx(judge.calibration([raw])[0])


def test_an_untrained_judge_says_so_and_the_pairs_stage_refuses_it(tmp_path):
    out = tmp_path / "out"
    (out / "entailment").mkdir(parents=True)
    (out / "entailment" / "model.safetensors").write_text("a judge trained earlier")
    argv = [
        "--params", str(PARAMS_FILE),
        "--model", str(out / "entailment"),
        "--metrics", str(out / "headline.json"),
        "--figures", str(out / "entailment.json"),
        "--loss-plot", str(out / "loss.csv"),
        "--dev-plot", str(out / "dev.csv"),
    ]  # fmt: skip
    stage.main(stage.parser().parse_args(argv))  # the default: entailment.train false

    assert json.loads((out / "entailment.json").read_text()) == {"trained": False}
    assert sorted(path.name for path in (out / "entailment").iterdir()) == [UNTRAINED_MARKER]
    with pytest.raises(ParamsError, match="was not trained .*set entailment.train true"):
        EntailmentJudge(out / "entailment")


def _run_stage(stage_module, params: dict, tmp_path: Path, name: str, extra: list[str] = ()) -> Path:
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    out = tmp_path / "out"
    argv = [
        "--params", str(tmp_path / "params.yaml"),
        *extra,
        "--model", str(out / name),
        "--metrics", str(out / "headline.json"),
        "--figures", str(out / f"{name}.json"),
        "--loss-plot", str(out / "loss.csv"),
        "--dev-plot", str(out / "dev.csv"),
    ]  # fmt: skip
    run_stage(stage_module.main, stage_module.parser(), argv)
    return out


@pytest.mark.slow
def test_one_three_way_judge_is_read_for_entailment_and_for_contradiction_each_calibrated(tmp_path):
    from tests.test_judgements import JUDGEMENTS_FIXTURE, judgements_refine

    params = yaml.safe_load(PARAMS_FILE.read_text())
    params["labelled_root"] = str(LABELLED_ROOT)
    params["gold"]["path"] = JUDGEMENTS_FIXTURE  # any file in the gold format judges it
    params["entailment"].update(train=True, head="three_way", labelled={"mnli": MNLI}, dev_fraction=0.4)
    params["entailment"]["training"].update(SHORT_TRAINING)
    params["entailment"]["refine"] = judgements_refine("judgements", dev_fraction=0.25, steps=2)
    out = _run_stage(stage, params, tmp_path, "judge")

    figures = json.loads((out / "judge.json").read_text())
    assert figures["head"] == "three_way"
    assert figures["labels"] == {"0": "entailment", "1": "neutral", "2": "contradiction"}
    # one training run: the general phase, then the judgements from its weights
    assert figures["refine"]["general_training"]["steps"] == 3 and figures["training"]["steps"] == 2
    # three classes on the held-out side are no reason to stop scoring it (mean of the two read)
    assert 0.0 <= figures["refine"]["general_training"]["dev_roc_auc"] <= 1.0
    held_out = figures["refine"]["examples"]["dev"]
    assert figures["calibration"]["fitted_on"] == held_out and 0 < held_out < 20
    assert 0.0 <= figures["dev"]["raw"]["roc_auc"] <= 1.0  # P(entailment), the pairs filter's
    assert 0.0 <= figures["classes"]["contradiction"]["dev"]["raw"]["roc_auc"] <= 1.0
    assert figures["gold"]["status"] == "evaluated" and figures["gold"]["overall"]["examples"] == 20
    headline = json.loads((out / "headline.json").read_text())
    assert set(headline) >= {
        "contradiction_dev_roc_auc",
        "gold_roc_auc",
        "gold_roc_auc_within_rule_negatives",
    }

    folder = out / "judge"
    assert {path.name for path in folder.glob("calibration*.json")} == {
        "calibration-entailment.json",
        "calibration-contradiction.json",
    }
    pair = ("Mortality was 8% with X and 14% with placebo.", "X did not reduce mortality.")
    for name in ("entailment", "contradiction"):
        judge = ContradictionClassifier(folder, name)
        (raw,) = judge.raw_contradiction_probabilities([pair])
        (calibrated,) = judge.contradiction_probabilities([pair])
        assert judge.calibration is not None and calibrated == pytest.approx(judge.calibration([raw])[0])
    entailment = ContradictionClassifier(folder, "entailment").calibration
    contradiction = ContradictionClassifier(folder, "contradiction").calibration
    assert entailment.to_dict() != contradiction.to_dict()  # each class has its own map
    # the pairs stage's reader takes the same folder
    (p_entails,) = EntailmentJudge(folder).entailment_probabilities([pair])
    assert 0.0 <= p_entails <= 1.0


def test_a_teacher_told_not_to_train_leaves_a_folder_that_says_why(tmp_path, monkeypatch):
    from stages import teacher as teacher_stage

    clock = [100.0]  # the stage's clock, which moves on 2.5 s while the stage writes its folder
    monkeypatch.setattr("scicon.stage.time", SimpleNamespace(perf_counter=lambda: clock[0]))
    write_untrained = teacher_stage.write_untrained

    def slow_write_untrained(*args):
        clock[0] += 2.5
        return write_untrained(*args)

    monkeypatch.setattr(teacher_stage, "write_untrained", slow_write_untrained)

    params = yaml.safe_load(PARAMS_FILE.read_text())
    params["teacher"].update(train=False, labelled={}, sources=[])  # nothing to learn is no error then
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "out" / "teacher" / "base").mkdir(parents=True)
    (tmp_path / "out" / "teacher" / "base" / "model.safetensors").write_text("a teacher trained earlier")
    empty = str(tmp_path / "empty.jsonl")
    out = _run_stage(teacher_stage, params, tmp_path, "teacher", ["--pairs", empty, "--negatives", empty])

    report = json.loads((out / "teacher.json").read_text())
    assert report["trained"] is False and report["stage_wall_seconds"] == 2.5  # the stage's time, kept
    assert sorted(path.name for path in (out / "teacher").iterdir()) == [UNTRAINED_MARKER]
    with pytest.raises(
        InputNotFoundError, match="holds no trained classifier .*evolve.settings.goal.classifier.model names"
    ):
        ContradictionClassifier(out / "teacher")


DIRECTION = {
    "kind": "evidence_inference_direction",
    "path": str(Path(__file__).parent / "fixtures" / "evidence_inference"),
    "root": "repository",
    "options": {
        "articles": "all",
        "held_out": None,
        "kinds": list(CLAIM_KINDS),
        "left_out_flags": ["incorrect", "questionable"],
        "min_evidence_words": 6,
        "max_evidence_words": 80,
        "min_word_share": 0.6,
        "max_phrase_words": 12,
        "seed": 5,
    },
    "weight": 1.0,
    "cap": None,
}


def test_edited_pairs_are_shown_marked_with_a_plain_copy_and_unedited_pairs_as_they_are():
    params = section(
        "entailment",
        EntailmentParams,
        head="three_way",
        labelled={"direction": DIRECTION},
        edits={"marked": True, "plain_copies": True},
    )
    candidates, counts = labelled_candidates(
        params, None, positive=None, section="entailment", edits=params.edits
    )
    assert counts == {"direction": 13}
    plain = {c.example_id.removesuffix("#plain"): c for c in candidates if c.example_id.endswith("#plain")}
    marked = [c for c in candidates if c.example_id in plain]
    # 13 claims: 3 stated (not edits), 10 edits, each marked and once plain
    assert len(candidates) == 23 and len(plain) == 10 and len(marked) == 10
    for edit in marked:
        assert "[" in edit.hypothesis and "[" not in plain[edit.example_id].hypothesis
        assert edit.label == plain[edit.example_id].label and edit.pmid == plain[edit.example_id].pmid
    unmarked = section("entailment", EntailmentParams, head="three_way", labelled={"direction": DIRECTION})
    assert len(labelled_candidates(unmarked, None, positive=None, edits=unmarked.edits)[0]) == 13


@pytest.mark.slow
def test_a_judge_that_reads_edits_is_shown_them_by_the_goal(tmp_path):
    from scicon.classifier_folder import RUN_RECORD
    from scicon.goal.base import TargetConfidence
    from scicon.goal.classifier import ClassifierGoalSettings, classifier_goal
    from scicon.records.base import TargetLabel
    from scicon.textdiff import marked_edit
    from tests.evolve_helpers import context

    params = yaml.safe_load(PARAMS_FILE.read_text())
    params["labelled_root"] = str(LABELLED_ROOT)
    params["entailment"].update(
        train=True,
        head="three_way",
        labelled={"mnli": MNLI, "direction": DIRECTION},
        dev_fraction=0.4,
        edits={"marked": True, "plain_copies": True},
    )
    params["entailment"]["training"].update(SHORT_TRAINING)
    out = _run_stage(stage, params, tmp_path, "judge")
    folder = out / "judge"
    assert json.loads((folder / RUN_RECORD).read_text())["edit_marking"] == "bracketed"

    judge = ContradictionClassifier(folder)
    assert judge.reads_edits
    evidence = "Major bleeding occurred in 4% of the velanoxet group and 9% of the warfarin group."
    original = "Velanoxet reduced major bleeding compared with warfarin."
    edited = "Velanoxet increased major bleeding compared with warfarin."
    assert judge.shown([(evidence, edited)], [original]) == [(evidence, marked_edit(original, edited))]
    assert judge.shown([(evidence, original)], [original]) == [(evidence, original)]  # no edit: as it is
    with_edit = judge.contradiction_probabilities([(evidence, edited)], originals=[original])
    without = judge.contradiction_probabilities([(evidence, edited)])

    scorer = classifier_goal(
        ClassifierGoalSettings(model=str(folder), contradiction_label="contradiction"), context()
    )
    goal = TargetConfidence(scorer, TargetLabel.CONTRADICTION, 0.4)
    assert goal.confidences([(evidence, edited)], original) == pytest.approx(with_edit)
    assert goal.confidences([(evidence, edited)]) == pytest.approx(without)
    assert with_edit != pytest.approx(without)  # the marks change what the model reads


@pytest.mark.slow
def test_the_cross_fit_scores_every_judgement_by_the_judge_that_never_learnt_its_abstract(tmp_path):
    from scicon.entailment import crossfit
    from tests.test_judgements import judgements_refine

    params = yaml.safe_load(PARAMS_FILE.read_text())
    params["labelled_root"] = str(LABELLED_ROOT)
    params["gold"]["path"] = None
    params["entailment"].update(train=True, head="three_way", labelled={"mnli": MNLI}, dev_fraction=0.4)
    params["entailment"]["training"].update(SHORT_TRAINING)
    params["entailment"]["refine"] = judgements_refine("scicon_judgements", dev_fraction=0.5, steps=2)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    seen: dict[str, set[str]] = {}
    original_train_half = crossfit.train_half

    def spy(half_params, labelled_root, general, other, out):
        metrics = original_train_half(half_params, labelled_root, general, other, out)
        seen[out.name] = other
        return metrics

    crossfit.train_half = spy
    try:
        report = crossfit.crossfit(tmp_path / "params.yaml", {}, tmp_path / "general", tmp_path / "cf", [])
    finally:
        crossfit.train_half = original_train_half
    folder = tmp_path / "cf" / "halves"
    halves = {}
    for half in crossfit.HALVES:
        halves[half] = {json.loads(line)["pmid"] for line in (folder / f"judgements-{half}.jsonl").open()}
    assert halves["a"] and halves["b"] and not halves["a"] & halves["b"]
    assert seen == {"judge-a": halves["b"], "judge-b": halves["a"]}
    held = report["held_out_judgements"]
    assert held["overall"]["examples"] == 20  # every judgement scored once, out of sample
    assert (tmp_path / "general" / "config.json").is_file()  # the shared first phase, kept for reuse
