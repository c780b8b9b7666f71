"""The audit stages end to end: export, no annotations yet, one annotator, the CLI, and DVC."""

from __future__ import annotations

import json

import pytest
import yaml

from scicon.annotation.blinding import KEY_FILE
from scicon.audit import __main__ as audit_cli
from scicon.errors import InputNotFoundError
from scicon.io import read_jsonl
from scicon.records.audit import AuditItem
from stages import audit_sample, audit_score
from tests.audit_fixtures import build_rows, fill_csv, write_build
from tests.dvc_project import commit_all, dvc
from tests.params_defaults import section_values

ANSWER_OF = {1: "contradiction", 0: "not a contradiction"}


@pytest.fixture
def workspace(tmp_path):
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({"audit": section_values("audit") | {"size": 20, "annotators": 2}}))
    write_build(tmp_path / "scicon", build_rows())
    return tmp_path, params


def export(tmp_path, params):
    audit_sample.main(
        audit_sample.parser().parse_args(
            [
                "--params",
                str(params),
                "--scicon",
                str(tmp_path / "scicon"),
                "--sample",
                str(tmp_path / "sample"),
            ]
            + ["--blinded", str(tmp_path / "blinded")]
        )
    )
    return list(read_jsonl(tmp_path / "sample" / KEY_FILE, AuditItem))


def score(tmp_path, params) -> dict:
    outputs = ["--metrics", str(tmp_path / "headline.json"), "--figures", str(tmp_path / "audit.json")]
    outputs += ["--report", str(tmp_path / "report.md")]
    outputs += ["--disagreements", str(tmp_path / "disagreements.jsonl")]
    audit_score.main(
        audit_score.parser().parse_args(
            ["--params", str(params), "--sample", str(tmp_path / "sample")]
            + ["--annotations", str(tmp_path / "annotations"), *outputs]
        )
    )
    return json.loads((tmp_path / "audit.json").read_text())


def test_export_then_score_before_and_after_the_first_annotator(workspace):
    tmp_path, params = workspace
    items = export(tmp_path, params)
    assert len(items) == 20
    assert sorted(p.name for p in (tmp_path / "blinded").iterdir()) == [
        "INSTRUCTIONS.md",
        "annotator-1.csv",
        "annotator-1.labelstudio.json",
        "annotator-2.csv",
        "annotator-2.labelstudio.json",
        "labelstudio_config.xml",
    ]
    # no annotations folder yet: a clear status, not a crash
    metrics = score(tmp_path, params)
    assert metrics["status"] == "no_annotations" and metrics["sample"]["items"] == 20
    assert "No judgments to score yet" in (tmp_path / "report.md").read_text()
    assert (tmp_path / "disagreements.jsonl").read_text() == ""

    labels = {item.item_id: item for item in items}
    disputed = items[0].item_id
    (tmp_path / "annotations").mkdir()

    def answer(row):
        label = labels[row["item_id"]].example.label
        return ANSWER_OF[1 - label if row["item_id"] == disputed else label]

    fill_csv(tmp_path / "blinded" / "annotator-1.csv", tmp_path / "annotations" / "annotator-1.csv", answer)
    metrics = score(tmp_path, params)
    assert metrics["status"] == "scored"
    assert metrics["agreement"] == pytest.approx(19 / 20)
    assert metrics["reliability"]["gwet_ac1"] is None  # one annotator
    assert set(metrics["by_generator"]) == {item.example.generator for item in items}
    assert metrics["disagreements"] == 1
    (row,) = [json.loads(line) for line in (tmp_path / "disagreements.jsonl").read_text().splitlines()]
    assert row["item_id"] == disputed and row["example_id"] == labels[disputed].example.example_id
    report = (tmp_path / "report.md").read_text()
    assert "Agreement with the algorithmic label: **95.0 %**" in report and disputed in report


def test_the_command_line_writes_what_the_stage_writes(workspace):
    tmp_path, params = workspace
    stage_items = export(tmp_path, params)
    audit_cli.main(
        audit_cli.parser().parse_args(
            ["--params", str(params), "export", "--scicon", str(tmp_path / "scicon")]
            + ["--sample", str(tmp_path / "cli-sample"), "--blinded", str(tmp_path / "cli-blinded")]
        )
    )
    assert list(read_jsonl(tmp_path / "cli-sample" / KEY_FILE, AuditItem)) == stage_items
    assert (tmp_path / "cli-blinded" / "annotator-2.csv").read_bytes() == (
        tmp_path / "blinded" / "annotator-2.csv"
    ).read_bytes()


def test_a_missing_split_is_named(workspace):
    tmp_path, params = workspace
    (tmp_path / "scicon" / "dev.jsonl").unlink()
    with pytest.raises(InputNotFoundError, match="dev.jsonl: SciCon split not found"):
        export(tmp_path, params)


@pytest.mark.slow
def test_dvc_versions_the_sample_and_metrics_diff_shows_the_audit_moving(project, tmp_path):
    copy, env = project
    write_build(copy / "data" / "scicon", build_rows())
    dvc(copy, env, "repro", "--single-item", "audit_sample")
    dvc(copy, env, "repro", "--single-item", "audit_score")
    assert json.loads((copy / "reports/audit.json").read_text())["status"] == "no_annotations"
    assert (
        "audit/blinded" not in (copy / ".gitignore").read_text() if (copy / ".gitignore").exists() else True
    )
    commit_all(copy, env, "audit sample, no annotations yet")

    items = {item.item_id: item for item in read_jsonl(copy / "audit/sample" / KEY_FILE, AuditItem)}
    fill_csv(
        copy / "audit/blinded/annotator-1.csv",
        copy / "audit/annotations/annotator-1.csv",
        lambda row: ANSWER_OF[items[row["item_id"]].example.label],
    )
    rerun = dvc(copy, env, "repro", "--single-item", "audit_score")
    assert "Running stage 'audit_score'" in rerun.stdout
    diff = json.loads(dvc(copy, env, "metrics", "diff", "--json").stdout)["metrics/audit.json"]
    assert diff["agreement"]["new"] == 1.0 and diff["items_judged"]["new"] == len(items)
    again = dvc(copy, env, "repro", "--single-item", "audit_score")
    assert "didn't change" in again.stdout
