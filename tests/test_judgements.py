"""Annotation rounds: sampling, blinded export, reading answers back, and the labelled set."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scicon.errors import InputFormatError, ParamsError
from scicon.io import read_jsonl, write_jsonl
from scicon.judgements.__main__ import main as judgements_main
from scicon.judgements.__main__ import parser as judgements_parser
from scicon.judgements.params import JudgementsParams
from scicon.judgements.pool import build_pool, candidate_id
from scicon.judgements.readback import Read, agreement, majority_label
from scicon.judgements.sample import refuse_reserved
from scicon.records.base import TargetLabel
from scicon.records.corpus import Role
from scicon.records.dataset import Example
from scicon.records.evolve import (
    CandidateTrace,
    GenerationTrace,
    MemberTrace,
    MutatedPair,
    PairTrace,
    SearchStatus,
)
from scicon.records.judgements import Judgement, RoundItem
from scicon.records.negatives import RuleNegative
from scicon.records.pairs import Pair, PairKind
from scicon.textdiff import word_diff
from tests.builders import abstract

PARAMS = {
    "sizes": {
        "original": 4,
        "rule_cross": 4,
        "control_cross": 2,
        "evonli_accepted": 2,
        "evonli_near_miss": 2,
        "other_abstract": 2,
    },
    "min_per_stratum": 1,
    "uncertainty_boost": 2.0,
    "near_miss_margin": 0.2,
    "other_abstract_per_abstract": 1,
    "annotators": 3,
    "multi_read": 2,
    "readers": 3,
    "controls_per_batch": 3,
    "min_control_accuracy": 0.85,
    "confidence_level": 0.95,
    "seed": 5,
}
RESERVED_PMID = "900"
DRUGS = ["aspirin", "metformin", "statins", "insulin", "warfarin", "heparin"]


def _pair(number: int, drug: str) -> Pair:
    pmid = str(100 + number)
    return Pair(
        pair_id=f"{pmid}-rc-1-2",
        pmid=pmid,
        kind=PairKind.RESULT_CONCLUSION,
        sentence1=f"Mortality was lower with {drug} than with placebo in {number + 20} patients.",
        sentence2=f"{drug.capitalize()} reduced mortality in patients with heart failure.",
        role1=Role.RESULTS,
        role2=Role.CONCLUSIONS,
        index1=1,
        index2=2,
    )


def _negative(pair: Pair, text: str, label: TargetLabel, operator: str) -> RuleNegative:
    return RuleNegative(
        negative_id=f"{pair.pair_id}-{operator}",
        pair_id=pair.pair_id,
        pmid=pair.pmid,
        source="sentence2",
        premise=pair.sentence2,
        hypothesis=text,
        label=label,
        operator=operator,
        edits=word_diff(pair.sentence2, text),
    )


def _trace(pair: Pair, accepted: str | None, near: str | None) -> PairTrace:
    candidates = tuple(
        CandidateTrace(text=text, similarity=0.9, claim=0.9, confidence=confidence)
        for text, confidence in ((near, 0.3), (pair.sentence2 + " Really.", 0.05))
        if text is not None
    )
    mutated = None
    if accepted:
        mutated = MutatedPair(
            pair_id=pair.pair_id,
            pmid=pair.pmid,
            kind=pair.kind,
            sentence1=pair.sentence1,
            original_sentence2=pair.sentence2,
            sentence2=accepted,
            target_label=TargetLabel.CONTRADICTION,
            confidence=0.8,
            iteration=1,
            edits=word_diff(pair.sentence2, accepted),
            recipe="evonli",
        )
    return PairTrace(
        pair_id=pair.pair_id,
        pmid=pair.pmid,
        target_label=TargetLabel.CONTRADICTION,
        status=SearchStatus.SUCCEEDED if accepted else SearchStatus.FAILED,
        sentence1=pair.sentence1,
        original_sentence2=pair.sentence2,
        generations=(
            GenerationTrace(
                iteration=1, members=(MemberTrace(parent=pair.sentence2, candidates=candidates, winner=0),)
            ),
        ),
        accepted=mutated,
        config_digest="test",
    )


def _gold(count: int = 9) -> list[dict]:
    labels = ["contradiction", "entailment", "neutral"]
    return [
        {
            "id": f"g-{n}",
            "pmid": str(800 + n),
            "sentence1": f"Gold premise {n} about blood pressure.",
            "sentence2": f"Gold statement {n} about blood pressure.",
            "gold": labels[n % 3],
            "contradiction": int(labels[n % 3] == "contradiction"),
            "garbled": 0,
        }
        for n in range(count)
    ]


@pytest.fixture
def corpus(tmp_path: Path) -> dict[str, Path]:
    """Pipeline outputs of six abstracts, one of them reserved."""
    pairs = [_pair(n, drug) for n, drug in enumerate(DRUGS)]
    reserved_pair = _pair(800, "digoxin").model_copy(update={"pmid": RESERVED_PMID, "pair_id": "900-rc-1-2"})
    pairs.append(reserved_pair)
    negatives = []
    for pair in pairs:
        negatives.append(
            _negative(
                pair,
                pair.sentence2.replace("reduced", "did not reduce"),
                TargetLabel.CONTRADICTION,
                "negation_insert",
            )
        )
        negatives.append(
            _negative(
                pair,
                pair.sentence2.replace("reduced", "increased"),
                TargetLabel.CONTRADICTION,
                "polarity_lexicon",
            )
        )
        negatives.append(
            _negative(
                pair,
                pair.sentence2.replace("reduced", "lowered"),
                TargetLabel.NON_CONTRADICTION,
                "synonym_control",
            )
        )
    traces = [
        _trace(
            pair,
            pair.sentence2.replace("reduced", "raised") if n % 2 else None,
            pair.sentence2.replace("heart failure", "no heart failure"),
        )
        for n, pair in enumerate(pairs)
    ]
    abstracts = [
        abstract(pair.pmid, ("RESULTS", pair.sentence1), ("CONCLUSIONS", pair.sentence2)) for pair in pairs
    ]
    paths = {name: tmp_path / f"{name}.jsonl" for name in ("pairs", "negatives", "trace", "abstracts")}
    write_jsonl(paths["pairs"], pairs)
    write_jsonl(paths["negatives"], negatives)
    write_jsonl(paths["trace"], traces)
    write_jsonl(paths["abstracts"], abstracts)
    paths["gold"] = tmp_path / "gold.jsonl"
    paths["gold"].write_text("".join(json.dumps(row) + "\n" for row in _gold()), encoding="utf-8")
    paths["reserved"] = tmp_path / "reserved.txt"
    paths["reserved"].write_text(f"{RESERVED_PMID}\n# kept back\n801\n", encoding="utf-8")
    paths["instructions"] = tmp_path / "INSTRUCTIONS.md"
    paths["instructions"].write_text("Label each item.\n", encoding="utf-8")
    paths["params"] = tmp_path / "params.yaml"
    paths["params"].write_text(json.dumps({"target": 0.4, "judgements": PARAMS}), encoding="utf-8")
    paths["rounds"] = tmp_path / "rounds"
    return paths


def _run(*argv: str) -> None:
    judgements_main(judgements_parser().parse_args(list(argv)))


def _read(corpus: dict[str, Path], out: Path, report: Path) -> None:
    _run("--params", str(corpus["params"]), "read", "--rounds", str(corpus["rounds"]),
         "--reserved", str(corpus["reserved"]), "--out", str(out), "--report", str(report))  # fmt: skip


def _sample(corpus: dict[str, Path], name: str = "r1") -> Path:
    _run(
        "--params",
        str(corpus["params"]),
        "sample",
        "--round",
        name,
        "--rounds",
        str(corpus["rounds"]),
        "--pairs",
        str(corpus["pairs"]),
        "--negatives",
        str(corpus["negatives"]),
        "--trace",
        str(corpus["trace"]),
        "--abstracts",
        str(corpus["abstracts"]),
        "--gold",
        str(corpus["gold"]),
        "--reserved",
        str(corpus["reserved"]),
        "--instructions",
        str(corpus["instructions"]),
    )
    return corpus["rounds"] / name


def test_pool_has_every_source_and_leaves_reserved_abstracts_out(corpus):
    pool = build_pool(
        corpus["pairs"],
        corpus["negatives"],
        corpus["trace"],
        corpus["abstracts"],
        frozenset({RESERVED_PMID}),
        frozenset(),
        0.4,
        0.2,
        1,
    )
    sources = {c.source for c in pool.candidates}
    assert sources == {
        "original",
        "rule_cross",
        "control_cross",
        "evonli_accepted",
        "evonli_near_miss",
        "other_abstract",
    }
    assert all(RESERVED_PMID not in (c.pmid, c.pmid2) for c in pool.candidates)
    # the reserved abstract's original, 3 negatives, its near miss; and another abstract's closest conclusion
    assert pool.reserved_skipped >= 5
    near = [c for c in pool.candidates if c.source == "evonli_near_miss"]
    assert near and all(
        "no heart failure" in c.sentence2 for c in near
    )  # 0.3 is within 0.2 of 0.4; 0.05 is not
    other = [c for c in pool.candidates if c.source == "other_abstract"]
    assert all(c.pmid2 != c.pmid for c in other)
    assert {c.operator for c in pool.candidates if c.source == "rule_cross"} == {
        "negation_insert",
        "polarity_lexicon",
    }


def test_sampling_refuses_an_item_from_a_reserved_abstract():
    item = RoundItem(
        item_id="j-1",
        candidate_id="c",
        round="r1",
        pmid="101",
        pmid2=RESERVED_PMID,
        pair_id="p",
        kind="result_conclusion",
        source="other_abstract",
        generator="other_abstract",
        sentence1="a",
        sentence2="b",
        stratum="s",
        sampling_weight=1.0,
        readers=1,
    )
    with pytest.raises(InputFormatError, match=f"reserved PMID {RESERVED_PMID}"):
        refuse_reserved([item], frozenset({RESERVED_PMID}), "key.jsonl")


def test_round_is_blinded_and_controls_are_hidden(corpus):
    folder = _sample(corpus)
    items = list(read_jsonl(folder / "key.jsonl", RoundItem))
    assignments = json.loads((folder / "assignments.json").read_text())
    assert len(assignments) == 3
    assert sum(item.readers == 3 for item in items) == 2
    given = [i for ids in assignments.values() for i in ids]
    assert len(given) == len(items) + 2 * 2 + 3 * 3  # multi-read items twice more, 3 controls a batch
    for name, ids in assignments.items():
        text = (folder / "blinded" / f"{name}.txt").read_text()
        tasks = json.loads((folder / "blinded" / f"{name}.labelstudio.json").read_text())
        assert [task["data"]["item_id"] for task in tasks] == ids
        assert all(i in text for i in ids)
        for hidden in ("rule_cross", "negation_insert", "evonli", "g-", "control"):
            assert hidden not in text
        assert not re.search(r"\b1\d\d\b", text)  # no PMID
    assert (folder / "blinded" / "INSTRUCTIONS.md").read_text() == "Label each item.\n"
    # the stratum weights undo the stratified, doubt-weighted draw
    assert all(item.sampling_weight > 0 for item in items)


def _answer(folder: Path, name: str, right_controls: int, label_for=lambda item: "neutral") -> Path:
    controls = {
        c["item_id"]: c for c in map(json.loads, (folder / "controls.jsonl").read_text().splitlines())
    }
    items = {i.item_id: i for i in read_jsonl(folder / "key.jsonl", RoundItem)}
    lines, right = [], 0
    for item_id in json.loads((folder / "assignments.json").read_text())[name]:
        if item_id in controls:
            gold = controls[item_id]["gold"]
            wrong = "entailment" if gold == "contradiction" else "contradiction"
            lines.append(f"{item_id}\t{gold if right < right_controls else wrong}\t0")
            right += 1
        else:
            lines.append(
                f"{item_id}\t{label_for(items[item_id])}\t{int(items[item_id].source == 'rule_cross')}"
            )
    path = folder / "annotations" / f"{name}.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_round_trip_gives_the_labelled_set_in_the_gold_format(corpus, tmp_path):
    folder = _sample(corpus)

    def contradicts(item):
        return "contradiction" if item.source in ("rule_cross", "evonli_accepted") else "entailment"

    for name in ("annotator-1", "annotator-2"):
        _answer(folder, name, right_controls=3, label_for=contradicts)
    _answer(folder, "annotator-3", right_controls=1)  # 1 of 3 controls: batch set aside
    out, report_path = tmp_path / "judgements.jsonl", tmp_path / "report.json"
    _read(corpus, out, report_path)
    report = json.loads(report_path.read_text())["rounds"]["r1"]
    assert report["redo"] == ["annotator-3"]
    assert report["annotators"]["annotator-1"]["controls_contradiction"]["share"] == 1.0
    assert report["annotators"]["annotator-3"]["controls_contradiction"]["hits"] == 1
    judgements = list(read_jsonl(out, Judgement))
    items = {i.item_id: i for i in read_jsonl(folder / "key.jsonl", RoundItem)}
    assert judgements and all(j.id in items for j in judgements)
    assert all(j.gold == contradicts(items[j.id]) for j in judgements)
    # the gold loader reads it as a labelled set, grouped by abstract, three-way labels kept
    from scicon.readers.gold import load_gold

    pairs = load_gold(out, None)
    assert {p.group for p in pairs} <= {j.pmid for j in judgements}
    assert sorted(p.nli_label for p in pairs) == sorted(j.gold for j in judgements)


def test_a_round_without_controls_keeps_every_batch(corpus, tmp_path):
    corpus["params"].write_text(
        json.dumps({"target": 0.4, "judgements": {**PARAMS, "controls_per_batch": 0}}), encoding="utf-8"
    )
    folder = _sample(corpus)
    for name in ("annotator-1", "annotator-2", "annotator-3"):
        _answer(folder, name, right_controls=0)
    out, report_path = tmp_path / "judgements.jsonl", tmp_path / "report.json"
    _read(corpus, out, report_path)
    report = json.loads(report_path.read_text())["rounds"]["r1"]
    assert report["redo"] == []
    assert report["annotators"]["annotator-1"]["controls_contradiction"]["share"] is None
    assert len(list(read_jsonl(out, Judgement))) == len(list(read_jsonl(folder / "key.jsonl", RoundItem)))


def test_a_new_round_never_repeats_a_judged_pair(corpus):
    first = {i.candidate_id for i in read_jsonl(_sample(corpus, "r1") / "key.jsonl", RoundItem)}
    second = {i.candidate_id for i in read_jsonl(_sample(corpus, "r2") / "key.jsonl", RoundItem)}
    assert first and not first & second


def test_a_finder_review_kept_beside_the_rounds_is_not_read_as_one(corpus, tmp_path):
    review = corpus["rounds"] / "find-review"  # its key has the finder's own records
    review.mkdir(parents=True)
    (review / "key.jsonl").write_text(json.dumps({"item_id": "f-1", "pair_id": "a|b"}) + "\n")
    folder = _sample(corpus, "r1")  # drawing a round reads the earlier rounds' keys, not the review's
    _answer(folder, "annotator-1", right_controls=3)
    _read(corpus, tmp_path / "judgements.jsonl", tmp_path / "report.json")  # nor does reading back
    assert list(json.loads((tmp_path / "report.json").read_text())["rounds"]) == ["r1"]


def test_an_answered_round_is_never_redrawn(corpus):
    folder = _sample(corpus)
    _answer(folder, "annotator-1", right_controls=3)
    with pytest.raises(ParamsError, match="already has answers"):
        _sample(corpus)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{id}\tcontradicts\t0", "label 'contradicts'"),
        ("{id}\tneutral\tyes", "garbled 'yes'"),
        ("{id}\tneutral", "found 2 fields"),
        ("j-000000000000\tneutral\t0", "was not given to annotator-1"),
    ],
)
def test_bad_answers_name_file_and_line(corpus, tmp_path, line, message):
    folder = _sample(corpus)
    first = json.loads((folder / "assignments.json").read_text())["annotator-1"][0]
    path = folder / "annotations" / "annotator-1.tsv"
    path.write_text(f"# answers\n{line.format(id=first)}\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=message) as raised:
        _read(corpus, tmp_path / "o.jsonl", tmp_path / "r.json")
    assert "annotator-1.tsv" in str(raised.value) and ":2" in str(raised.value)


def test_labelstudio_export_is_read_like_a_tsv(corpus, tmp_path):
    folder = _sample(corpus)
    ids = json.loads((folder / "assignments.json").read_text())["annotator-2"]
    export = [
        {
            "data": {"item_id": i, "sentence_a": "a", "sentence_b": "b"},
            "annotations": [
                {
                    "was_cancelled": False,
                    "result": [
                        {"from_name": "label", "value": {"choices": ["neutral"]}},
                        {"from_name": "garbled", "value": {"choices": ["garbled"]}},
                    ],
                }
            ],
        }
        for i in ids
    ]
    (folder / "annotations" / "annotator-2.json").write_text(json.dumps(export), encoding="utf-8")
    from scicon.judgements.readback import read_round

    reads = read_round(folder).reads
    assert len(reads) == len(ids) and all(r.label == "neutral" and r.garbled == 1 for r in reads)


def test_a_labelstudio_export_with_a_byte_order_mark_and_pre_1_0_completions_is_read(corpus):
    folder = _sample(corpus)
    ids = json.loads((folder / "assignments.json").read_text())["annotator-1"]
    export = [
        {
            "data": {"item_id": i, "sentence_a": "a", "sentence_b": "b"},
            "completions": [{"result": [{"from_name": "label", "value": {"choices": ["entailment"]}}]}],
        }
        for i in ids
    ]
    (folder / "annotations" / "annotator-1.json").write_text(json.dumps(export), encoding="utf-8-sig")
    from scicon.judgements.readback import read_round

    reads = read_round(folder).reads
    assert len(reads) == len(ids) and all(r.label == "entailment" and r.garbled == 0 for r in reads)


def test_majority_never_makes_a_contradiction_from_a_tie():
    assert majority_label(["contradiction", "contradiction", "neutral"]) == "contradiction"
    assert majority_label(["contradiction", "neutral"]) == "neutral"
    assert majority_label(["contradiction", "entailment"]) == "entailment"
    assert majority_label(["contradiction", "entailment", "neutral"]) == "neutral"


def test_agreement_on_hand_worked_tables():
    def reads(item: str, *labels: str) -> list[Read]:
        return [Read(f"a{n}", item, label, 0) for n, label in enumerate(labels)]

    # 4 items, 3 readers: two unanimous contradictions, one unanimous neutral, one 2-1 split
    by_item = {
        "i1": reads("i1", "contradiction", "contradiction", "contradiction"),
        "i2": reads("i2", "contradiction", "contradiction", "contradiction"),
        "i3": reads("i3", "neutral", "neutral", "neutral"),
        "i4": reads("i4", "neutral", "neutral", "entailment"),
    }
    figures = agreement(by_item, 3)
    # contradiction vs not: every item unanimous, so observed agreement 1 and kappa 1
    assert figures["fleiss_kappa_contradiction"] == pytest.approx(1.0)
    # three-way by hand: P_i = 1, 1, 1, 1/3 -> P̄ = 5/6; p = (6/12, 1/12, 5/12) -> P_e = 62/144;
    # kappa = (5/6 - 62/144) / (1 - 62/144) = 58/82
    assert figures["fleiss_kappa_three_way"] == pytest.approx(58 / 82)
    assert figures["unanimity_three_way"] == pytest.approx(0.75)


def test_params_refuse_an_unknown_source():
    with pytest.raises(ValueError, match="unknown sources"):
        JudgementsParams(**{**PARAMS, "sizes": {"rules": 3}})


def test_candidate_id_is_the_pair_not_its_provenance():
    assert candidate_id("A.", "B.") == candidate_id(" A.", "B. ")
    assert candidate_id("A.", "B.") != candidate_id("B.", "A.")


JUDGEMENTS_FIXTURE = "tests/fixtures/judgements/judgements.jsonl"  # the labelled set's real format
# the fixture as a labelled set of a judge's params, read from the repository (any labelled root)
JUDGEMENTS_SPEC = {"kind": "gold", "path": JUDGEMENTS_FIXTURE, "root": "repository", "options": None,
                   "weight": 1.0, "cap": None}  # fmt: skip


def judgements_refine(name: str, dev_fraction: float, steps: int, weight: float = 1.0) -> dict:
    """A judge's second phase on the judgements fixture alone, evaluated every ``steps``."""
    return {
        "labelled": {name: {**JUDGEMENTS_SPEC, "weight": weight}},
        "dev_fraction": dev_fraction,
        "max_steps": steps,
        "eval_steps": steps,
        "learning_rate": 5e-5,
    }


def test_the_labelled_set_is_read_from_the_repository_whatever_the_labelled_root(tmp_path):
    from scicon.labelled.candidates import labelled_candidates
    from scicon.teacher.params import TeacherParams
    from tests.params_defaults import section

    params = section("teacher", TeacherParams, sources=[], labelled={"judgements": JUDGEMENTS_SPEC})
    candidates, counts = labelled_candidates(params, str(tmp_path))  # an empty labelled root
    assert counts == {"judgements": 20}
    assert sum(c.label for c in candidates) == 8  # the contradictions
    assert {c.pmid for c in candidates} == {
        f"labelled:judgements:{5000 + n}" for n in range(8)
    }  # by abstract
    spec_in_root = {**JUDGEMENTS_SPEC, "root": "labelled_root"}
    params = section("teacher", TeacherParams, sources=[], labelled={"judgements": spec_in_root})
    with pytest.raises(FileNotFoundError, match="judgements"):
        labelled_candidates(params, str(tmp_path))


@pytest.mark.slow
def test_a_teacher_refined_on_a_tiny_set_of_judgements(tmp_path):
    import yaml

    from scicon.classifier import ContradictionClassifier
    from stages import teacher as stage
    from tests.params_defaults import PARAMS_FILE
    from tests.test_labelled import MNLI
    from tests.test_labelled import ROOT as LABELLED_ROOT

    params = yaml.safe_load(PARAMS_FILE.read_text())
    params["teacher"]["train"] = True  # the default's judge is pulled, not trained
    params["teacher"]["training"].update(
        {"max_steps": 4, "eval_steps": 2, "logging_steps": 1, "max_length": 48}
    )
    params["labelled_root"] = str(LABELLED_ROOT)
    params["teacher"]["sources"] = []
    params["teacher"]["dev_fraction"] = 0.3
    params["teacher"]["labelled"] = {"mnli": MNLI}
    params["teacher"]["refine"] = judgements_refine("judgements", dev_fraction=0.25, steps=3, weight=2.0)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    (tmp_path / "empty.jsonl").write_text("")
    out = tmp_path / "out"
    argv = ["--params", str(tmp_path / "params.yaml"), "--pairs", str(tmp_path / "empty.jsonl"),
            "--negatives", str(tmp_path / "empty.jsonl"), "--model", str(out / "teacher"),
            "--metrics", str(out / "headline.json"), "--figures", str(out / "teacher.json"),
            "--loss-plot", str(out / "loss.csv"), "--dev-plot", str(out / "dev.csv")]  # fmt: skip
    stage.main(stage.parser().parse_args(argv))
    figures = json.loads((out / "teacher.json").read_text())
    # first phase on the general set, second from its weights on the judgements
    assert figures["refine"]["general_training"]["steps"] == 4
    assert figures["training"]["steps"] == 3
    assert figures["refine"]["labelled"] == {"judgements": 20}
    # the calibration is fitted on the judgements' held-out abstracts
    held_out = figures["refine"]["examples"]["dev"]
    assert figures["calibration"]["fitted_on"] == held_out and 0 < held_out < 20
    assert set(figures["dev_by_source"]) <= {"labelled:judgements:0", "labelled:judgements:1"}
    steps = [int(line.split(",")[0]) for line in (out / "loss.csv").read_text().splitlines()[1:]]
    assert steps == sorted(steps) and steps[-1] == 7  # both phases on one axis
    assert not list(out.glob(".teacher-general-*"))  # the first phase's weights are not left behind
    teacher = ContradictionClassifier(out / "teacher")
    (probability,) = teacher.contradiction_probabilities(
        [("Mortality was 8% with X and 14% with placebo.", "X did not reduce mortality.")]
    )
    assert 0.0 <= probability <= 1.0


def test_answers_that_are_not_utf8_name_file_and_line(corpus, tmp_path):
    folder = _sample(corpus)
    first = json.loads((folder / "assignments.json").read_text())["annotator-1"][0]
    (folder / "annotations" / "annotator-1.tsv").write_bytes(
        f"{first}\tneutral\t0\n".encode() + b"\xff\tx\t0\n"
    )
    with pytest.raises(InputFormatError, match="not UTF-8") as raised:
        _read(corpus, tmp_path / "o.jsonl", tmp_path / "r.json")
    assert "annotator-1.tsv" in str(raised.value) and ":2" in str(raised.value)


def _built_row(example_id: str, first: str, second: str, label: int, generator: str, operator: str | None):
    return Example(
        example_id=example_id,
        pmid=example_id.split("-")[0],
        sentence1=first,
        sentence2=second,
        label=label,
        generator=generator,
        operator=operator,
        mutation_type="negation_polarity" if label else None,
        split="train",
    )


def test_a_built_scicon_is_a_pool_with_each_edit_read_against_its_unedited_sentence(tmp_path):
    result = "Mortality was lower with aspirin than with placebo."
    conclusion = "Aspirin reduced mortality."
    rows = [
        # the build shuffles each row's order: the original row names which sentences are unedited
        _built_row("101-rc-1-2-original", conclusion, result, 0, "original", "result_conclusion"),
        _built_row("101-rc-1-2-evonli", "Aspirin did not reduce mortality.", result, 1, "evonli", "custom"),
        _built_row(
            "101-rc-1-2-s2-negation_insert-4-rules_cross",
            result,
            "Aspirin never reduced mortality.",
            1,
            "rules_cross",
            "negation_insert",
        ),
        _built_row(
            "101-rc-1-2-s2-synonym_control-5-rules_cross",
            "Aspirin lowered mortality.",
            result,
            0,
            "rules_cross",
            "synonym_control",
        ),
        # an edit whose pair's original row the build dropped cannot be oriented: left out
        _built_row("102-cc-1-3-evonli", "Heparin did not help.", "Heparin helped.", 1, "evonli", "custom"),
        _built_row("labelled:snli-7", "A man sleeps.", "A man runs.", 1, "labelled:snli", None),
    ]
    (tmp_path / "train.jsonl").write_text("".join(row.model_dump_json() + "\n" for row in rows))
    pool = build_pool(None, None, None, None, frozenset(), frozenset(), 0.4, 0.2, 0, built=tmp_path)
    by_source = {c.source: c for c in pool.candidates}
    assert sorted(by_source) == ["control_cross", "evonli_accepted", "original", "rule_cross"]
    evonli = by_source["evonli_accepted"]
    assert (evonli.sentence1, evonli.sentence2, evonli.original) == (
        result,
        "Aspirin did not reduce mortality.",
        conclusion,
    )
    assert (evonli.pair_id, evonli.kind, evonli.generator) == ("101-rc-1-2", "result_conclusion", "evonli")
    assert by_source["rule_cross"].sentence1 == result
    assert by_source["rule_cross"].operator == "negation_insert"
    assert by_source["control_cross"].sentence2 == "Aspirin lowered mortality."
    assert all(c.pmid != "102" for c in pool.candidates)
    # reserved abstracts and judged pairs are left out as for the generators' own outputs
    judged = frozenset({evonli.candidate_id})
    again = build_pool(None, None, None, None, frozenset({"999"}), judged, 0.4, 0.2, 0, built=tmp_path)
    assert "evonli_accepted" not in {c.source for c in again.candidates}
    assert again.already_judged == 1


def test_a_round_names_its_inputs_or_stops(corpus, tmp_path):
    with pytest.raises(ParamsError, match="--pairs, a built --scicon folder"):
        _run("--params", str(corpus["params"]), "sample", "--round", "r9", "--rounds", str(tmp_path),
             "--gold", str(corpus["gold"]), "--reserved", str(corpus["reserved"]),
             "--instructions", str(corpus["instructions"]))  # fmt: skip
