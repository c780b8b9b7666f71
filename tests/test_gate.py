"""The gate every generated contradiction passes before it becomes a SciCon label 1."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scicon.classifier_folder import write_untrained
from scicon.dataset import assemble_scicon
from scicon.dataset.gate import Gate, ReadBacks, gated_source
from scicon.errors import InputNotFoundError, NoWorkError, ParamsError
from scicon.io import read_jsonl, write_jsonl
from scicon.records.dataset import Candidate
from scicon.records.evolve import MutatedPair
from scicon.records.judgements import Judgement
from scicon.verifier.gate import build_gate
from tests.test_build import params, sources  # noqa: F401 (the fixture)

LEVEL = 0.95


def _gate(**overrides) -> Gate:
    values = {
        "min_precision": 0.0,
        "reads_needed": 1,
        "reads": None,
        "garbled_probability": None,
        "max_garbled": 0.5,
        "contradiction_probability": None,
        "min_verifier": 0.5,
        "confidence_level": LEVEL,
    } | overrides
    return Gate(**values)


def _rejecting(word: str):
    """A verifier that calls a pair a contradiction unless its edited sentence holds ``word``."""
    return lambda candidates: np.array([0.1 if word in c.hypothesis else 0.9 for c in candidates])


def _labels(build) -> dict[str, int]:
    return {example.example_id: example.label for example in build.dataset.examples}


def test_a_pair_the_goal_accepts_and_the_verifier_rejects_never_becomes_label_one(sources):  # noqa: F811
    accepted = list(read_jsonl(sources.evolve, MutatedPair))
    rejected = next(m for m in accepted if m.target_label.value == "contradiction")
    # the verifier rejects exactly that one acceptance: its pmid is in no other sentence
    word = rejected.pmid
    ungated = assemble_scicon(sources, params(sources=("evonli", "original")))
    gated = assemble_scicon(
        sources,
        params(sources=("evonli", "original")),
        gate=_gate(contradiction_probability=_rejecting(word)),
    )
    example_id = f"{rejected.pair_id}-evonli"
    assert _labels(ungated)[example_id] == 1
    assert example_id not in _labels(gated)
    counts = gated.metrics["gate"]["by_source"]["evonli"]
    evonli_rows = sum(e.generator == "evonli" and e.label == 1 for e in ungated.dataset.examples)
    rejected_count = sum(word in m.sentence2 for m in accepted if m.target_label.value == "contradiction")
    assert counts["offered"] == evonli_rows
    assert counts["verifier_rejected"] == rejected_count >= 1
    assert counts["kept"] == evonli_rows - rejected_count
    assert gated.metrics["gate"]["removed"]["verifier_rejected"]["count"] == rejected_count
    # label-0 rows never pass through the gate
    zeros = lambda build: {i for i, label in _labels(build).items() if label == 0}  # noqa: E731
    assert zeros(gated) == zeros(ungated)


def test_each_gate_removes_what_it_should_in_order_and_counts_it(sources):  # noqa: F811
    build_params = params(sources=("evonli", "original", "rules_cross", "rule_controls_cross"))
    every = assemble_scicon(sources, build_params)
    rule_rows = [e for e in every.dataset.examples if e.generator == "rules_cross" and e.label == 1]
    operator = rule_rows[0].operator
    # reads that put this rule operator below the precision floor
    reads = ReadBacks(
        by_pair={},
        by_source={f"rules_cross/{operator}": [_read(0)] * 3 + [_read(1)]},
        path="reads.jsonl",
    )
    gate = _gate(
        reads=reads,
        min_precision=0.5,
        reads_needed=4,
        # everything the rule operator left passes the naturalness check but one mark
        garbled_probability=lambda cs: np.array([0.9 if int(c.pmid) % 2 else 0.1 for c in cs]),
        max_garbled=0.5,
    )
    build = assemble_scicon(sources, build_params, gate=gate)
    summary = build.metrics["gate"]
    left = summary["by_source"][f"rules_cross/{operator}"]
    assert left["offered"] == len([r for r in rule_rows if r.operator == operator])
    assert left["below_precision"] == left["offered"] and left.get("kept", 0) == 0
    assert summary["read_precision"][f"rules_cross/{operator}"]["share"] == 0.25
    assert summary["read_precision"][f"rules_cross/{operator}"]["left_out"] is True
    # the naturalness check reads only what the precision gate let through: every remaining edit
    # of an odd-numbered abstract is marked garbled and removed, and counted
    survivors = [
        e for e in every.dataset.examples
        if e.label == 1 and not (e.generator == "rules_cross" and e.operator == operator)
    ]  # fmt: skip
    marked = {e.example_id for e in survivors if int(e.pmid) % 2}
    assert marked and summary["removed"]["garbled"]["count"] == len(marked)
    assert summary["kept"] == len(survivors) - len(marked)
    assert not marked & {e.example_id for e in build.dataset.examples}


def _read(contradiction: int, **fields) -> Judgement:
    values = {
        "id": "j-1",
        "pmid": "1",
        "pair_id": "1-rc-1-2",
        "kind": "result_conclusion",
        "source": "rule_cross",
        "generator": "rules",
        "operator": "negation_insert",
        "mutation_type": None,
        "sentence1": "a",
        "sentence2": "b",
        "gold": "contradiction" if contradiction else "neutral",
        "contradiction": contradiction,
        "votes": {"contradiction" if contradiction else "neutral": 1},
        "unanimous": True,
        "garbled": 0,
        "round": "r1",
        "annotators": 1,
        "sampling_weight": 1.0,
    } | fields
    return Judgement(**values)


def test_read_backs_give_each_source_its_precision_and_the_curve_its_points(tmp_path):
    candidates = [
        Candidate(f"{n}-rc-1-2-evonli", str(n), f"result {n}", f"claim {n} not", 1, "evonli", "custom")
        for n in range(4)
    ]
    reads = [
        _read(
            n % 2,
            id=f"j-{n}",
            pmid=str(n),
            source="evonli_accepted",
            generator="evonli",
            operator="custom",
            sentence1=f"Result {n}",
            sentence2=f"claim {n}  NOT",
        )  # fmt: skip
        for n in range(4)
    ]
    path = tmp_path / "reads.jsonl"
    write_jsonl(path, reads)
    back = ReadBacks.read(path)
    assert back.precision("evonli", LEVEL)["share"] == 0.5
    # the verifier is surest of the two true ones
    verifier = lambda cs: np.array([0.9 if int(c.pmid) % 2 else 0.3 for c in cs])  # noqa: E731
    kept, report = _gate(reads=back, contradiction_probability=verifier, min_verifier=0.5).apply(candidates)
    assert [c.pmid for c in kept] == ["1", "3"]
    assert report.kept_reads["all"]["share"] == 1.0 and report.kept_reads["all"]["of"] == 2
    at = {row["min_verifier"]: row for row in report.curve}
    assert at[0.0]["kept"] == 4 and at[0.0]["precision"] == 0.5
    assert at[0.5]["kept"] == 2 and at[0.5]["precision"] == 1.0
    assert at[0.95]["kept"] == 0 and at[0.95]["precision"] is None
    assert gated_source(candidates[0]) == "evonli"


def _untrained(tmp_path) -> dict[str, str]:
    folders = {name: tmp_path / "untrained" / name for name in ("naturalness", "verifier")}
    for folder in folders.values():
        write_untrained(folder, "its stage's train is false")
    return {name: str(folder) for name, folder in folders.items()}


def test_the_gate_is_off_with_untrained_checks_and_names_what_is_missing(tmp_path):
    off = _untrained(tmp_path)
    assert build_gate(params(**off), LEVEL) is None
    with pytest.raises(InputNotFoundError, match="build.precision_reads"):
        build_gate(params(**off, precision_reads=str(tmp_path / "absent.jsonl")), LEVEL)
    with pytest.raises(InputNotFoundError, match="no naturalness check"):
        build_gate(params(**{**off, "naturalness": str(tmp_path / "empty")}), LEVEL)


def test_a_gate_that_removes_every_contradiction_says_which_knob_to_turn(sources):  # noqa: F811
    with pytest.raises(NoWorkError, match="the gate removed all .* lower build.min_verifier"):
        assemble_scicon(
            sources,
            params(sources=("evonli", "original")),
            gate=_gate(contradiction_probability=lambda cs: np.zeros(len(cs))),
        )


def test_a_verifier_trained_on_marked_edits_is_refused(tmp_path):
    from tests.tiny_models import save_tiny_bert

    folder = save_tiny_bert(tmp_path / "judge", {0: "entailment", 1: "neutral", 2: "contradiction"})
    (folder / "scicon_classifier.json").write_text(json.dumps({"edit_marking": "bracketed"}))
    with pytest.raises(ParamsError, match="trained on marked edits"):
        build_gate(params(**{**_untrained(tmp_path), "verifier": str(folder)}), LEVEL)


def test_a_real_verifier_folder_reads_plain_pairs_and_its_threshold_moves_the_yield(sources, tmp_path):  # noqa: F811
    from tests.tiny_models import save_tiny_bert

    folder = save_tiny_bert(
        tmp_path / "verifier", {0: "entailment", 1: "neutral", 2: "contradiction"}, seed=3
    )
    off = _untrained(tmp_path)
    build_params = params(
        sources=("evonli", "original"), naturalness=off["naturalness"], verifier=str(folder), min_verifier=0.0
    )
    everything = assemble_scicon(sources, build_params, gate=build_gate(build_params, LEVEL))
    summary = everything.metrics["gate"]
    assert summary["kept"] == summary["offered"] > 0
    curve = everything.gate_curve
    assert [row["kept"] for row in curve] == sorted((row["kept"] for row in curve), reverse=True)
    assert curve[0]["kept"] == summary["offered"]


def test_the_card_says_what_the_gate_removed_from_each_source(sources):  # noqa: F811
    build = assemble_scicon(
        sources,
        params(sources=("evonli", "original")),
        gate=_gate(
            contradiction_probability=lambda cs: np.array([0.9 if int(c.pmid) % 2 else 0.1 for c in cs])
        ),
    )
    counts = build.metrics["gate"]["by_source"]["evonli"]
    assert "## The gate" in build.card
    assert "verifier P(contradiction) at least 0.5" in build.card
    row = (
        f"| evonli | {counts['offered']} | 0 | 0 | {counts['verifier_rejected']} | {counts['kept']} | - | - |"
    )
    assert row in build.card
    assert "## The gate" not in assemble_scicon(sources, params(sources=("evonli", "original"))).card
