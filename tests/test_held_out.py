"""The held-out articles (data/held_out) never reach an annotation round or a training set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scicon.dataset.build import build_dataset
from scicon.dataset.params import BuildParams
from scicon.io import read_id_list
from scicon.profiles import load_profile
from scicon.records.dataset import Candidate
from tests.params_defaults import section

ROOT = Path(__file__).resolve().parent.parent
HELD_OUT = ROOT / "data" / "held_out" / "evidence_inference_pmcids.txt"
ROUNDS = ROOT / "judgements" / "rounds"
JUDGEMENTS = ROOT / "data" / "labelled" / "scicon-judgements" / "judgements.jsonl"


def held_out() -> frozenset[str]:
    return read_id_list(HELD_OUT)


def test_the_list_is_the_documented_fifth_of_the_articles():
    ids = held_out()
    assert len(ids) == 614 and all(i.startswith("PMC") for i in ids)


def test_no_round_drew_a_held_out_article():
    keys = sorted(ROUNDS.glob("*/key.jsonl"))
    judged = {json.loads(line)["round"] for line in JUDGEMENTS.read_text(encoding="utf-8").splitlines()}
    # every round the labelled set was read from is checked here: rounds moved elsewhere fail
    assert judged and judged <= {key.parent.name for key in keys}, f"rounds {sorted(judged)} not in {ROUNDS}"
    ids = held_out()
    for key in keys:
        for line, text in enumerate(key.read_text(encoding="utf-8").splitlines(), start=1):
            item = json.loads(text)
            assert item["pmid"] not in ids, f"{key}:{line}"
            assert item.get("pmid2") not in ids, f"{key}:{line}"


def test_the_judgements_the_judges_learn_from_hold_no_held_out_article():
    pmids = {json.loads(line)["pmid"] for line in JUDGEMENTS.read_text(encoding="utf-8").splitlines()}
    assert pmids and not pmids & held_out()


def _sets(value, where=""):
    """Every labelled set entry (kind + options) in a profile's settings, with where it is."""
    if isinstance(value, dict):
        if "kind" in value and "options" in value:
            yield where, value
        for key, inner in value.items():
            yield from _sets(inner, f"{where}.{key}" if where else key)


@pytest.mark.parametrize("profile", ["real-abstracts"])
def test_judges_learn_direction_claims_of_training_articles_only(profile):
    settings = load_profile(profile)
    direction = [(w, e) for w, e in _sets(settings) if e["kind"] == "evidence_inference_direction"]
    assert direction, "the profile reads the direction claims somewhere"
    for where, entry in direction:
        options = entry["options"]
        assert options["held_out"] == "data/held_out/evidence_inference_pmcids.txt", where
        if where.startswith("evaluate.benchmarks"):
            assert options["articles"] == "held_out", where
        else:
            assert options["articles"] == "training", where
    assert "data/held_out/evidence_inference_pmcids.txt" in settings["build.held_out"]
    assert "data/gold/reserved_pmids.txt" in settings["build.held_out"]


def test_the_build_sends_held_out_abstracts_to_the_test_split():
    pmcid = sorted(held_out())[0]
    candidates = [
        Candidate(f"{pmid}-{n}", pmid, f"Result {pmid} {n}.", f"Claim {pmid} {n}.", n % 2, "original")
        for pmid in (pmcid, "PMC1", "PMC2", "PMC3", "PMC4")
        for n in range(2)
    ]
    dataset = build_dataset(candidates, dev_fraction=0.0, test_fraction=0.0, seed=1, held_out=held_out())
    assert {e.pmid for e in dataset.splits["test"]} == {pmcid}
    assert pmcid not in {e.pmid for e in dataset.splits["train"]}


def test_no_student_learns_from_the_gold_pairs_abstracts_by_default(monkeypatch):
    # the gold pairs are the judges' and students' yardstick: their abstracts go to test
    monkeypatch.chdir(ROOT)
    build = section("build", BuildParams)
    gold = read_id_list(ROOT / "data" / "gold" / "reserved_pmids.txt")
    assert len(gold) == 380 and gold <= build.held_out_ids()
    pmid = sorted(gold)[0]
    candidates = [
        Candidate(
            f"{abstract}-{n}",
            abstract,
            f"Result {abstract} {n}.",
            f"Claim {abstract} {n}.",
            n % 2,
            "original",
        )
        for abstract in (pmid, "1", "2", "3")
        for n in range(2)
    ]
    dataset = build_dataset(
        candidates, dev_fraction=0.0, test_fraction=0.0, seed=1, held_out=build.held_out_ids()
    )
    assert {e.pmid for e in dataset.splits["test"]} == {pmid}


def test_one_held_out_file_may_be_named_alone():
    assert section("build", BuildParams, held_out=str(HELD_OUT)).held_out_ids() == held_out()
