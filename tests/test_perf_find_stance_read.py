"""perf/find_stance_read.py: each stance method scored against blind readers' answers."""

from __future__ import annotations

import json

from perf.find_stance_read import main


def test_each_method_is_scored_on_the_pairs_the_readers_side(tmp_path):
    run, review = tmp_path / "run", tmp_path / "review"
    run.mkdir()
    review.mkdir()
    methods = {
        "right": [{"a": "yes", "b": "no", "c": "yes"}, {"x": "yes", "y": "yes"}],
        "one side": [{"a": "yes", "b": "yes", "c": "yes"}, {"x": "yes", "y": "yes"}],
        "unplaced": [{"a": "neither", "b": "mixed", "c": "yes"}],
    }
    (run / "stance_methods.json").write_text(json.dumps(methods))
    readers = {
        "a": ("q1", "yes"),
        "b": ("q1", "no"),
        "c": ("q1", "yes"),
        "d": ("q1", "neither"),
        "x": ("q2", "no"),
        "y": ("q2", "no"),
    }
    (review / "stances.jsonl").write_text(
        "".join(
            json.dumps({"claim_id": c, "question": q, "reader": r, "finder": "yes", "garbled": 0}) + "\n"
            for c, (q, r) in readers.items()
        )
    )
    main(["--run", str(run), "--review", str(review), "--out", str(tmp_path / "out.json")])
    figures = json.loads((tmp_path / "out.json").read_text())
    assert figures["pairs_sided_by_readers"] == 4  # a-b, a-c, b-c in q1; x-y in q2 (d says neither)
    accuracy = {name: m["accuracy"]["share"] for name, m in figures["methods"].items()}
    assert accuracy == {"right": 1.0, "one side": 0.5, "unplaced": None}
    assert figures["methods"]["one side"]["coverage"]["hits"] == 4
