"""The real pipeline: stage scripts as DVC runs them, in a temporary copy of the project."""

from __future__ import annotations

import json
import sys

import pytest
import yaml

from tests.dvc_project import (
    FAST_PIPELINE_PARAMS,
    OWN_TEACHER_PARAMS,
    REPO,
    copy_released,
    deep_update,
    dvc,
    run,
    stale_stages,
    update_params,
)

pytestmark = pytest.mark.slow


def test_repro_runs_ingest_and_pairs_then_reports_nothing_changed(project):
    copy, env = project
    dvc(copy, env, "repro", "pairs")
    ingest = json.loads((copy / "reports/ingest.json").read_text())
    pairs = json.loads((copy / "reports/pairs.json").read_text())
    assert ingest["abstracts"] == 40
    assert pairs["pairs"] > 40
    assert (copy / "data/interim/pairs.jsonl").read_text().count("\n") == pairs["pairs"]

    again = dvc(copy, env, "repro", "pairs")
    assert "Data and pipelines are up to date" in again.stdout

    # outputs are DVC-tracked and ignored by git; metrics and reports are committed to git
    ignored = run(["git", "check-ignore", "data/interim/pairs.jsonl"], copy, env, check=False)
    assert ignored.returncode == 0
    for committed in ("metrics/pairs.json", "reports/pairs.json"):
        assert run(["git", "check-ignore", committed], copy, env, check=False).returncode == 1


def test_changing_a_pairs_param_reruns_pairs_only(project):
    copy, env = project
    dvc(copy, env, "repro", "pairs")
    rerun = dvc(copy, env, "exp", "run", "pairs", "-S", "pairs.result_selector=overlap")
    assert "Stage 'ingest' didn't change, skipping" in rerun.stdout
    assert "Running stage 'pairs'" in rerun.stdout
    assert json.loads((copy / "reports/pairs.json").read_text())["result_selector"] == "overlap"


def test_a_malformed_source_fails_the_stage_naming_file_and_line(project, tmp_path):
    copy, env = project
    bad = tmp_path / "bad.txt"
    bad.write_text("###1\nRESULTS\tFine.\nFINDINGS\tNot a role.\n", encoding="utf-8")
    result = dvc(
        copy,
        env,
        "exp",
        "run",
        "pairs",
        "-S",
        f"ingest.source={bad}",
        "-S",
        f"ingest.watched={bad}",
        check=False,
    )
    assert result.returncode != 0
    assert f"error: {bad}:3: unknown role 'FINDINGS'" in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


def test_an_edited_source_file_reruns_ingest_and_what_follows(project, tmp_path):
    copy, env = project
    corpus = tmp_path / "outside" / "mine.txt"
    corpus.parent.mkdir()
    corpus.write_text((copy / "data/demo/demo_rct.txt").read_text(encoding="utf-8"), encoding="utf-8")
    update_params(copy, {"ingest": {"source": str(corpus), "watched": str(corpus)}})
    dvc(copy, env, "repro", "pairs")
    assert not stale_stages(copy) & {"ingest", "pairs"}

    text = corpus.read_text(encoding="utf-8")
    corpus.write_text(text.replace("###", "###9", 1), encoding="utf-8")  # a corrected PMID
    assert "ingest" in stale_stages(copy)
    rerun = dvc(copy, env, "repro", "pairs")
    assert "Running stage 'ingest'" in rerun.stdout and "Running stage 'pairs'" in rerun.stdout


def test_a_local_source_dvc_does_not_watch_stops_the_stage_saying_what_to_set(project, tmp_path):
    copy, env = project
    corpus = tmp_path / "mine.txt"
    corpus.write_text((copy / "data/demo/demo_rct.txt").read_text(encoding="utf-8"), encoding="utf-8")
    result = dvc(copy, env, "exp", "run", "ingest", "-S", f"ingest.source={corpus}", check=False)
    assert result.returncode != 0
    assert f"add -S ingest.watched={corpus}" in result.stderr + result.stdout


BUILD_TO_EVALUATE = ("--single-item", "build", "finetune", "evaluate")


def test_repro_builds_finetunes_and_evaluates_with_fixture_sources(released, tmp_path):
    """build -> finetune -> evaluate on the demo corpus, with stand-in evolve/negatives files, in a
    copy of the released project: the stages before them are reproduced there on these params."""
    _, env, _, _ = released
    copy = copy_released(released, tmp_path / "project")
    # the project's params, with a few-step teacher (evaluate compares the student with it; it
    # runs pairs, and the negatives the stand-ins below replace), named as EvoNLI's goal and the
    # evaluated teacher (the build records the goal's judge)
    params = deep_update(
        yaml.safe_load((REPO / "params.yaml").read_text()),
        {**OWN_TEACHER_PARAMS, "negatives": FAST_PIPELINE_PARAMS["negatives"]},
    )
    (copy / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    # the teacher and the gate's two checks the build reads (the naturalness check learns in
    # seconds; the verifier is left untrained, as by default) are up to date on these params
    assert not stale_stages(copy) & {"ingest", "pairs", "teacher", "naturalness", "verifier"}
    run(
        [
            sys.executable,
            "-m",
            "tests.source_fixtures",
            "data/interim/pairs.jsonl",
            "data/evolve/accepted.jsonl",
            "data/negatives/negatives.jsonl",
        ],
        copy,
        env,
    )
    params["finetune"].update(FAST_PIPELINE_PARAMS["finetune"])
    params["evaluate"]["max_examples"] = 20  # the zero-shot backbone pass stays short
    params["evaluate"]["benchmarks"]["healthver_dev"]["path"] = str(copy / "absent" / "healthver_dev.csv")
    (copy / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    # these three only: evolve and negatives are not run, their stand-in files are read (and
    # the finder and the audit after the student are left as they were)
    dvc(copy, env, "repro", *BUILD_TO_EVALUATE)
    build = json.loads((copy / "reports/build.json").read_text())
    assert build["examples"] > 100 and build["sources_unavailable"] == 0
    assert (copy / "data/scicon/README.md").read_text().startswith("---\n")
    finetune = json.loads((copy / "reports/finetune.json").read_text())
    assert finetune["steps"] == 3
    evaluate = json.loads((copy / "reports/evaluate.json").read_text())
    assert evaluate["demo_biomed_nli"]["status"] == "evaluated"
    demo_scicon = evaluate["demo_biomed_nli"]["models"]["scicon"]
    assert 0 <= demo_scicon["roc_auc_ci_low"] <= demo_scicon["roc_auc_ci_high"] <= 1
    assert evaluate["demo_biomed_nli"]["best_baseline"] in evaluate["demo_biomed_nli"]["baselines"]
    assert evaluate["scicon_test"]["status"] == "evaluated"
    no_data = ("healthver_dev", "nli4ct_dev", "mednli", "mednli_surgery", "cardio", "hard_cardio", "gold")
    for skipped in no_data:
        assert evaluate[skipped]["status"] == "skipped" and "models" not in evaluate[skipped]
    assert "base benchmark 'gold' skipped: no path configured" in evaluate["hard_gold"]["reason"]
    assert (copy / "plots/roc/demo_biomed_nli.scicon.csv").exists()
    assert (
        (copy / "plots/scores/demo_biomed_nli.csv")
        .read_text()
        .startswith("key,label,scicon,teacher,zero_shot,")
    )

    shown = dvc(copy, env, "metrics", "show")
    assert "demo_biomed_nli.scicon_roc_auc" in shown.stdout  # the headline, not the breakdown
    assert "demo_biomed_nli.models.scicon.roc_auc" not in shown.stdout
    again = dvc(copy, env, "repro", *BUILD_TO_EVALUATE)
    for stage in ("build", "finetune", "evaluate"):
        assert f"Stage '{stage}' didn't change, skipping" in again.stdout

    # a threshold the dataset card records, with the same rows: the card changes, nothing retrains
    card = (copy / "data/scicon/README.md").read_text()
    params["sim"] = 0.7
    (copy / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    card_only = dvc(copy, env, "repro", *BUILD_TO_EVALUATE)
    assert "Running stage 'build'" in card_only.stdout
    assert (copy / "data/scicon/README.md").read_text() != card
    for stage in ("finetune", "evaluate"):
        assert f"Stage '{stage}' didn't change, skipping" in card_only.stdout
