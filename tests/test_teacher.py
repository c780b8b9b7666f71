"""The teacher stage on the demo corpus: cross-sentence data, a short training, a calibrated folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from scicon.classifier import ContradictionClassifier
from scicon.classifier_folder import CALIBRATION_FILE
from scicon.corpus import ingest
from scicon.corpus.params import IngestParams
from scicon.dataset.sources import SourcePaths
from scicon.io import write_jsonl
from scicon.pairing import build_pairs, make_cheap_selector
from scicon.pairing.params import PairsParams
from scicon.rules.generators import build_negatives
from scicon.rules.params import NegativesParams
from scicon.teacher.data import teacher_data
from scicon.teacher.params import TeacherParams
from stages import teacher as stage
from tests.params_defaults import PARAMS_FILE, section, section_values
from tests.test_labelled import MNLI
from tests.test_labelled import ROOT as LABELLED_ROOT

REPO = Path(__file__).resolve().parent.parent
DAG_SOURCES = ("original", "rules_cross", "rule_controls_cross")
SHORT_TRAINING = {"max_steps": 6, "eval_steps": 3, "logging_steps": 1, "max_length": 48}

DEFAULT_OPERATORS = section_values("candidates")["operators"]


@pytest.fixture(scope="module")
def dag_data(tmp_path_factory):
    """Pairs and rule negatives of the demo corpus, made by the stages' own code."""
    folder = tmp_path_factory.mktemp("dag")
    source = str(REPO / "data/demo/demo_rct.txt")
    sample = section("ingest", IngestParams, source=source, max_abstracts=16)
    abstracts = ingest(sample, cache_dir=folder).abstracts
    pairs = build_pairs(abstracts, section("pairs", PairsParams), make_cheap_selector("tfidf")).pairs
    by_pmid = {abstract.pmid: abstract for abstract in abstracts}
    negatives = build_negatives(
        pairs, by_pmid, section("negatives", NegativesParams), DEFAULT_OPERATORS, progress=False
    )
    write_jsonl(folder / "pairs.jsonl", pairs)
    write_jsonl(folder / "negatives.jsonl", negatives.negatives)
    return folder


@pytest.mark.slow
def test_the_teacher_learns_from_cross_sentence_negatives_originals_and_controls(dag_data):
    params = section("teacher", TeacherParams, sources=DAG_SOURCES, labelled={})
    data = teacher_data(
        SourcePaths(pairs=dag_data / "pairs.jsonl", negatives=dag_data / "negatives.jsonl"), params, None
    )
    examples = data.dataset.examples
    generators = {(e.generator, e.label) for e in examples}
    assert generators == {("original", 0), ("rules_cross", 1), ("rules_cross", 0)}
    # grouped by abstract: no abstract on both sides
    train_pmids = {e.pmid for e in data.dataset.splits["train"]}
    assert not train_pmids & {e.pmid for e in data.dataset.splits["dev"]}
    assert data.dataset.splits["test"] == []

    # narrowing the operators leaves the other operators' negatives out, and says so
    only_negation = params.model_copy(update={"operators": ("negation_insert",)})
    narrowed = teacher_data(
        SourcePaths(pairs=dag_data / "pairs.jsonl", negatives=dag_data / "negatives.jsonl"),
        only_negation,
        None,
    )
    assert {e.operator for e in narrowed.dataset.examples if e.label == 1} == {"negation_insert"}
    assert sum(narrowed.left_out.values()) > 0


def test_the_teacher_must_not_learn_from_the_search_it_teaches():
    with pytest.raises(ValueError, match="the teacher is trained before evolve runs"):
        section("teacher", TeacherParams, sources=["original", "evonli"])


@pytest.mark.slow
def test_the_teacher_stage_writes_a_calibrated_classifier_and_its_figures(dag_data, tmp_path):
    params = yaml.safe_load(PARAMS_FILE.read_text())
    params["teacher"]["train"] = True  # the default's judge is pulled, not trained
    params["teacher"]["training"].update(SHORT_TRAINING)
    # a labelled set from a labelled root beside the DAG's data, and gold pairs to be judged on
    params["labelled_root"] = str(LABELLED_ROOT)
    params["teacher"]["sources"] = list(DAG_SOURCES)
    params["teacher"]["labelled"] = {"mnli": MNLI}
    params["gold"]["path"] = str(LABELLED_ROOT / "gold" / "gold_dev.jsonl")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    out = tmp_path / "out"
    argv = [
        "--params", str(tmp_path / "params.yaml"),
        "--pairs", str(dag_data / "pairs.jsonl"),
        "--negatives", str(dag_data / "negatives.jsonl"),
        "--model", str(out / "teacher"),
        "--metrics", str(out / "headline.json"),
        "--figures", str(out / "teacher.json"),
        "--loss-plot", str(out / "loss.csv"),
        "--dev-plot", str(out / "dev.csv"),
    ]  # fmt: skip
    stage.main(stage.parser().parse_args(argv))

    metrics = json.loads((out / "teacher.json").read_text())
    assert metrics["training"]["steps"] == 6
    assert 0.0 <= metrics["dev"]["raw"]["roc_auc"] <= 1.0 and metrics["dev"]["raw"]["ece"] is not None
    assert metrics["probe"]["raw"]["examples"] > 0
    assert {"original", "rules_cross:0", "rules_cross:1"} <= set(metrics["dev_by_source"])
    assert "target" not in metrics  # the teacher reads no threshold; evaluate judges it at target
    assert metrics["labelled"] == {"mnli": 9}
    gold = metrics["gold"]
    assert gold["status"] == "evaluated" and gold["overall"]["examples"] == 8
    assert gold["within_rule_negatives"]["examples"] == 4
    assert set(gold) == {"status", "file", "overall", "within_rule_negatives"}

    # the folder scores pairs, calibrated by what the stage fitted on the held-out abstracts
    assert (out / "teacher" / CALIBRATION_FILE).is_file()
    teacher = ContradictionClassifier(out / "teacher")
    pair = ("Bleeding occurred in 4% with velanoxet and 9% with warfarin.", "Velanoxet reduced bleeding.")
    (raw,) = teacher.raw_contradiction_probabilities([pair])
    (calibrated,) = teacher.contradiction_probabilities([pair])
    assert 0.0 <= calibrated <= 1.0 and calibrated == pytest.approx(teacher.calibration([raw])[0])
