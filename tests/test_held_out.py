"""The held-out articles (data/held_out) never reach an annotation round or a training set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scicon.dataset.build import build_dataset
from scicon.io import read_id_list
from scicon.profiles import load_profile
from scicon.records.dataset import Candidate

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
    assert settings["build.held_out"] == "data/held_out/evidence_inference_pmcids.txt"


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
