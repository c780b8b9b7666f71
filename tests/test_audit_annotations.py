"""Reading annotations back: CSV and Label Studio exports, validation errors naming file and row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scicon.audit.annotations import read_annotations
from scicon.audit.blinded import write_blinded
from scicon.audit.figures import score_audit
from scicon.audit.question import Answer
from scicon.audit.sample import draw_sample
from scicon.errors import InputFormatError
from tests.audit_fixtures import audit_params, build_rows, fill_csv, truth

ANSWER_OF = {1: Answer.CONTRADICTION.value, 0: Answer.NOT_CONTRADICTION.value}


@pytest.fixture
def audit(tmp_path):
    """A drawn sample, its blinded files for three annotators, and an empty annotations folder."""
    sample = draw_sample(build_rows(), audit_params(size=12))
    write_blinded(sample.items, annotators=3, seed=41, folder=tmp_path / "blinded")
    (tmp_path / "annotations").mkdir()
    return sample.items, tmp_path / "blinded", tmp_path / "annotations"


def label_studio_export(
    tasks_file: Path, answer_of, user=7, skip: int | None = None, cancel: int | None = None
):
    """What Label Studio exports as JSON after its user labelled the imported task file.

    The shape follows Label Studio's documented "JSON format of annotated tasks": the task
    data as imported, and per annotation its ``result`` regions, ``completed_by`` and
    ``was_cancelled``.
    """
    exported = []
    for number, task in enumerate(json.loads(tasks_file.read_text(encoding="utf-8")), start=1):
        annotations = []
        if number != skip:
            result = [
                {
                    "value": {"choices": [answer_of(task["data"]["item_id"])]},
                    "id": f"r{number}",
                    "from_name": "answer",
                    "to_name": "sentence_a",
                    "type": "choices",
                    "origin": "manual",
                }
            ]
            if number == 1:
                result.append(
                    {
                        "value": {"text": ["dose differs"]},
                        "id": f"c{number}",
                        "from_name": "comment",
                        "to_name": "sentence_a",
                        "type": "textarea",
                        "origin": "manual",
                    }
                )
            annotations.append(
                {
                    "id": 100 + number,
                    "completed_by": user,
                    "result": result,
                    "was_cancelled": number == cancel,
                    "ground_truth": False,
                    "created_at": "2026-11-23T10:00:00.000000Z",
                    "updated_at": "2026-11-23T10:00:00.000000Z",
                    "lead_time": 12.5,
                    "prediction": {},
                    "result_count": 0,
                    "task": number,
                    "project": 3,
                }
            )
        exported.append(
            {
                "id": number,
                "annotations": annotations,
                "drafts": [],
                "predictions": [],
                "data": task["data"],
                "meta": {},
                "created_at": "2026-11-23T09:00:00.000000Z",
                "updated_at": "2026-11-23T10:00:00.000000Z",
                "inner_id": number,
                "total_annotations": len(annotations),
                "cancelled_annotations": int(number == cancel),
                "total_predictions": 0,
                "comment_count": 0,
                "unresolved_comment_count": 0,
                "last_comment_updated_at": None,
                "project": 3,
                "updated_by": user,
                "comment_authors": [],
            }
        )
    return exported


def test_label_studio_round_trip_scores_what_was_labelled(audit):
    items, blinded, annotations = audit
    labels = truth(items)
    export = label_studio_export(
        blinded / "annotator-1.labelstudio.json", lambda i: ANSWER_OF[labels[i]], skip=2, cancel=3
    )
    (annotations / "annotator-1.json").write_text(json.dumps(export), encoding="utf-8")
    read = read_annotations(annotations, items)
    assert len(read.judgments) == len(items) - 2  # one task never labelled, one skipped (cancelled)
    assert all(labels[j.item_id] == j.answer.label for j in read.judgments)
    assert [j.comment for j in read.judgments if j.comment] == ["dose differs"]
    metrics, _ = score_audit(items, read, {}, audit_params())
    assert metrics["agreement"] == 1.0
    assert metrics["annotators"]["annotator-1"]["missing"] == 2


def test_label_studio_json_min_and_csv_exports_are_read(audit):
    items, blinded, annotations = audit
    labels = truth(items)
    tasks = json.loads((blinded / "annotator-2.labelstudio.json").read_text(encoding="utf-8"))
    json_min = [
        task["data"]
        | {"id": n, "answer": ANSWER_OF[1 - labels[task["data"]["item_id"]]], "annotator": "kim@example.org"}
        | {"annotation_id": n, "lead_time": 3.0}
        for n, task in enumerate(tasks, start=1)
    ]
    (annotations / "annotator-2.json").write_text(json.dumps(json_min), encoding="utf-8")
    csv_export = ["annotation_id,annotator,answer,comment,id,item_id,lead_time,sentence_a,sentence_b"]
    for n, task in enumerate(tasks, start=1):
        data = task["data"]
        a, b = (f'"{s}"' for s in (data["sentence_a"], data["sentence_b"]))
        csv_export.append(f"{n},3,{ANSWER_OF[labels[data['item_id']]]},,{n},{data['item_id']},2.0,{a},{b}")
    (annotations / "annotator-3.csv").write_text("\n".join(csv_export) + "\n", encoding="utf-8")
    read = read_annotations(annotations, items)
    assert set(read.annotators) == {"annotator-2", "annotator-3"}
    metrics, _ = score_audit(items, read, {}, audit_params())
    assert metrics["annotators"]["annotator-2"]["agreement"] == 0.0
    assert metrics["annotators"]["annotator-3"]["agreement"] == 1.0


def test_a_label_studio_project_shared_by_the_panel_gives_one_annotator_per_user(audit):
    items, blinded, annotations = audit
    labels = truth(items)
    tasks = blinded / "annotator-1.labelstudio.json"
    first = label_studio_export(tasks, lambda i: ANSWER_OF[labels[i]], user={"id": 1, "email": "a@lab.org"})
    second = label_studio_export(tasks, lambda i: ANSWER_OF[labels[i]], user={"id": 2, "email": "b@lab.org"})
    for task, other in zip(first, second, strict=True):
        task["annotations"] += other["annotations"]
    (annotations / "panel.json").write_text(json.dumps(first), encoding="utf-8")
    read = read_annotations(annotations, items)
    assert set(read.annotators) == {"panel/a@lab.org", "panel/b@lab.org"}
    metrics, _ = score_audit(items, read, {}, audit_params())
    assert metrics["reliability"]["items"] == len(items) and metrics["reliability"]["unanimity"] == 1.0


def test_a_filled_csv_round_trips_and_blank_answers_are_partial(audit):
    items, blinded, annotations = audit
    labels = truth(items)
    answered = {item.item_id for item in items[:8]}

    def answer(row):
        return ANSWER_OF[labels[row["item_id"]]].upper() if row["item_id"] in answered else ""

    fill_csv(blinded / "annotator-1.csv", annotations / "annotator-1.csv", answer)
    read = read_annotations(annotations, items)
    assert len(read.judgments) == 8 and read.annotators["annotator-1"].blank == len(items) - 8
    metrics, _ = score_audit(items, read, {}, audit_params())
    assert metrics["annotators"]["annotator-1"]["missing"] == len(items) - 8
    assert metrics["items_judged"] == 8 and metrics["agreement"] == 1.0


def write_csv(folder: Path, name: str, lines: list[str], encoding: str = "utf-8") -> Path:
    path = folder / name
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    return path


def test_malformed_csv_files_are_rejected_with_file_and_line(audit):
    items, _, annotations = audit
    first, second = items[0].item_id, items[1].item_id
    cases = [
        (
            ["item_id,answer", f"{first},contradiction", f"{second},maybe"],
            r"annotator-1\.csv:3: .*unknown answer 'maybe'",
        ),
        (
            ["item_id,answer", f"{first},contradiction", f"{second},unsure", f"{first},not a contradiction"],
            rf"annotator-1\.csv:4: {first} is answered twice \(first at line 2\)",
        ),
        (["item_id,answer", "17,contradiction"], r"annotator-1\.csv:2: '17' is not an audit item id"),
        (["item_id,label", f"{first},contradiction"], r"annotator-1\.csv:1: missing column\(s\) answer"),
        (["item_id,answer", f"{first},contradiction,extra"], r"annotator-1\.csv:2: 3 cells but 2 columns"),
        (["answer,item_id", "contradiction"], r"annotator-1\.csv:2: '' is not an audit item id"),
    ]
    for lines, message in cases:
        path = write_csv(annotations, "annotator-1.csv", lines)
        with pytest.raises(InputFormatError, match=message):
            read_annotations(annotations, items)
        path.unlink()
    write_csv(
        annotations, "annotator-1.csv", ["item_id,answer,comment", f"{first},unsure,dosis é"], "latin-1"
    )
    with pytest.raises(InputFormatError, match=r"annotator-1\.csv: not UTF-8"):
        read_annotations(annotations, items)


def test_malformed_label_studio_exports_are_rejected_with_file_and_task(audit):
    items, blinded, annotations = audit
    path = annotations / "annotator-1.json"
    export = label_studio_export(blinded / "annotator-1.labelstudio.json", lambda i: "contradiction")
    export[1]["annotations"][0]["result"][0]["value"]["choices"] = ["contradiction", "unsure"]
    path.write_text(json.dumps(export), encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"annotator-1\.json: task 2: more than one answer chosen"):
        read_annotations(annotations, items)
    export = label_studio_export(blinded / "annotator-1.labelstudio.json", lambda i: "contradiction")
    del export[0]["data"]["item_id"]
    path.write_text(json.dumps(export), encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"annotator-1\.json: task 1: no item_id"):
        read_annotations(annotations, items)
    export = label_studio_export(blinded / "annotator-1.labelstudio.json", lambda i: "yes")
    path.write_text(json.dumps(export), encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"annotator-1\.json: task 1: unknown answer 'yes'"):
        read_annotations(annotations, items)
    path.write_text('[{"data": {}},\n  oops]', encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"annotator-1\.json:2: not valid JSON"):
        read_annotations(annotations, items)


def test_two_files_for_one_annotator_are_an_error(audit):
    items, _, annotations = audit
    write_csv(annotations, "annotator-1.csv", ["item_id,answer"])
    (annotations / "annotator-1.labelstudio.json").write_text("[]", encoding="utf-8")
    with pytest.raises(InputFormatError, match="a second file for annotator 'annotator-1'"):
        read_annotations(annotations, items)


def test_answers_from_an_earlier_sample_are_stale_not_fatal(audit, caplog):
    items, _, annotations = audit
    old_item = "item-0123456789ab"
    changed = items[1]
    write_csv(
        annotations,
        "annotator-1.csv",
        [
            "item_id,sentence_a,sentence_b,answer",
            f'{items[0].item_id},"{items[0].example.sentence2}","{items[0].example.sentence1}",contradiction',
            f'{changed.item_id},"{changed.example.sentence1}","an older wording",contradiction',
            f"{old_item},a,b,not a contradiction",
        ],
    )
    (annotations / "README.md").write_text("how to name files", encoding="utf-8")
    (annotations / "notes.docx").write_bytes(b"\0")
    read = read_annotations(annotations, items)
    assert [j.item_id for j in read.judgments] == [items[0].item_id]  # sentence order does not matter
    assert read.annotators["annotator-1"].stale == 2 and read.stale == 2
    assert "annotator-1.csv line 4: item-0123456789ab is not in the current sample" in caplog.text
    assert "annotator-1.csv line 3: the sentences of" in caplog.text
    assert "notes.docx is not an annotation file" in caplog.text
