"""`dvc repro negatives` on the demo corpus, offline, in a temporary copy of the project."""

from __future__ import annotations

import json

import pytest

from tests.dvc_project import dvc, update_params

pytestmark = pytest.mark.slow

ABSTRACTS = 10


def test_repro_negatives_then_a_negatives_param_reruns_only_that_stage(project):
    copy, env = project
    # a quarter of the demo: the fluency check scores every candidate with the language model
    update_params(copy, {"ingest": {"max_abstracts": ABSTRACTS}})
    dvc(copy, env, "repro", "negatives")
    metrics = json.loads((copy / "reports/negatives.json").read_text())
    lines = (copy / "data/negatives/negatives.jsonl").read_text().splitlines()
    edited = metrics["pairs"] - sum(metrics["pairs_of_kinds_not_edited"].values())
    assert edited > ABSTRACTS and metrics["negatives"] == len(lines) > edited
    assert metrics["skipped"]["not_grounded"] > 0 and metrics["skipped"]["not_fluent"] > 0
    assert metrics["pairs_untouched_share"] < 0.1
    assert {json.loads(line)["operator"] for line in lines} >= {"negation_insert", "synonym_control"}

    rerun = dvc(copy, env, "exp", "run", "negatives", "-S", "negatives.generator=modified_eda")
    assert "Stage 'pairs' didn't change, skipping" in rerun.stdout
    assert "Running stage 'negatives'" in rerun.stdout
    eda = json.loads((copy / "reports/negatives.json").read_text())
    assert eda["generator"] == "modified_eda"
    assert set(eda["pairs_transformable_share"]) == {"eda_antonym", "negation_insert"}
