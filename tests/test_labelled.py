"""Labelled data: every loader on small fixtures in its real format, the labelled root, the named
downloads against a real server on 127.0.0.1, and the teacher's caps and weights."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from scicon.errors import ChecksumMismatchError, DownloadError, InputFormatError
from scicon.evaluate.benchmarks import Skipped, load_benchmarks
from scicon.io import hash_file
from scicon.labelled import download as downloads
from scicon.labelled.candidates import labelled_candidates, weighted
from scicon.labelled.sources import SOURCES, LabelledSource, SourceFile
from scicon.readers.sets import LabelledSpec, SetSpec
from scicon.teacher.params import TeacherParams
from tests.params_defaults import section

ROOT = Path(__file__).parent / "fixtures" / "labelled"
THREE_WAY = {"entailment": "entailment", "neutral": "neutral", "contradiction": "contradiction"}
TABLE = {"sentence1": "premise", "sentence2": "hypothesis", "label": "label", "group": None,
         "delimiter": ",", "where": None, "labels": THREE_WAY, "skip_labels": []}  # fmt: skip


def load(kind: str, path: Path | str, options: dict | None) -> list:
    (loaded,) = load_benchmarks({"x": SetSpec(kind=kind, path=str(path), options=options)}).values()
    assert not isinstance(loaded, Skipped), loaded
    return loaded.pairs


def test_a_table_keeps_the_three_way_label_and_groups_by_premise():
    pairs = load("nli_table", ROOT / "nli-datasets/mnli/dev.csv", TABLE)
    assert Counter(p.nli_label for p in pairs) == {"entailment": 3, "contradiction": 3, "neutral": 3}
    assert [p.label for p in pairs[:3]] == [0, 1, 0]
    assert pairs[1].sentence2 == "The clinic is closed on every weekday."
    assert pairs[1].group == pairs[0].group == "The clinic opens at eight every weekday."
    assert pairs[3].key == "dev.csv:5"  # a quoted field with a comma, line numbers kept


def test_a_tab_separated_table_filtered_by_column_and_an_anli_file():
    sick = {**TABLE, "sentence1": "sentence_A", "sentence2": "sentence_B", "label": "entailment_label",
            "delimiter": "\t", "where": {"SemEval_set": ["TEST"]},
            "labels": {"ENTAILMENT": "entailment", "NEUTRAL": "neutral",
                       "CONTRADICTION": "contradiction"}}  # fmt: skip
    pairs = load("nli_table", ROOT / "sick/SICK.txt", sick)
    assert [(p.sentence2, p.nli_label) for p in pairs] == [
        ("The dog is brown", "neutral"),
        ("A woman is not cutting an onion", "contradiction"),
    ]
    anli = {**TABLE, "sentence1": "context", "sentence2": "statement", "label": "gold_label",
            "labels": {"e": "entailment", "n": "neutral", "c": "contradiction"}}  # fmt: skip
    assert [
        p.label for p in load("nli_table", ROOT / "anli-dev-annotated/ANLI_analysis_r1_dev.csv", anli)
    ] == [
        0,
        1,
        0,
    ]


def test_a_json_lines_table_with_a_binary_label_and_skipped_rows(tmp_path):
    path = tmp_path / "pairs.jsonl"
    rows = (
        '{"s1": "A", "s2": "B", "y": "1"}',
        '{"s1": "A", "s2": "C", "y": "0"}',
        '{"s1": "A", "s2": "D", "y": "-"}',
    )
    path.write_text("\n".join(rows) + "\n")
    options = {**TABLE, "sentence1": "s1", "sentence2": "s2", "label": "y",
               "labels": {"1": "contradiction", "0": "neutral"}, "skip_labels": ["-"]}  # fmt: skip
    assert [(p.sentence2, p.label) for p in load("nli_table", path, options)] == [("B", 1), ("C", 0)]


def test_an_unknown_label_names_the_file_and_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("premise,hypothesis,label\nA,B,entailment\nA,C,contradicts\n")
    with pytest.raises(InputFormatError, match=r"bad.csv:3: label 'contradicts' is not a known label"):
        load("nli_table", path, TABLE)


def test_a_label_map_onto_something_else_than_the_three_classes_is_refused():
    with pytest.raises(Exception, match="must map onto entailment, neutral, contradiction"):
        load("nli_table", ROOT / "nli-datasets/mnli/dev.csv", {**TABLE, "labels": {"entailment": "yes"}})


def test_check_covid_pairs_the_evidence_sentences_in_order_with_each_claim():
    options = {"claims": ["train/covidCheck_train_composed+extracted.json"], "corpus": "corpus.json",
               "labels": {"SUPPORT": "entailment", "REFUTE": "contradiction", "NOTENOUGHINFO": "neutral"},
               "skip_labels": []}  # fmt: skip
    pairs = load("check_covid", ROOT / "check-covid/Check-COVID", options)
    assert [(p.key, p.nli_label, p.label, p.group) for p in pairs] == [
        ("c1_0", "entailment", 0, "doc-a"),
        ("c1_1", "contradiction", 1, "doc-a"),
        ("c1_2", "neutral", 0, "doc-a"),
        ("c2_0", "contradiction", 1, "doc-b"),
    ]
    assert pairs[0].sentence1 == "The assay detected the virus in saliva within 30 minutes."
    assert (
        pairs[2].sentence1
        == "The assay detected the virus in saliva within 30 minutes. Sensitivity was 94% against swabs."
    )


def test_check_covid_evidence_outside_the_abstract_is_an_error_with_its_line(tmp_path):
    folder = tmp_path / "Check-COVID"
    shutil.copytree(ROOT / "check-covid/Check-COVID", folder)
    claims = folder / "train/covidCheck_train_composed+extracted.json"
    claims.write_text(claims.read_text().replace('"sent_index": 2', '"sent_index": 9'))
    options = {"claims": ["train/covidCheck_train_composed+extracted.json"], "corpus": "corpus.json",
               "labels": {"SUPPORT": "entailment", "REFUTE": "contradiction", "NOTENOUGHINFO": "neutral"},
               "skip_labels": []}  # fmt: skip
    with pytest.raises(InputFormatError, match=r"composed\+extracted.json:3: evidence sentence 9"):
        load("check_covid", folder, options)


def test_scifact_format_one_pair_per_evidence_set_and_claims_without_evidence_left_out():
    options = {"claims": ["claims_train.jsonl"], "corpus": "corpus.jsonl",
               "labels": {"SUPPORT": "entailment", "REFUTE": "contradiction"}, "skip_labels": []}  # fmt: skip
    pairs = load("scifact", ROOT / "citation-integrity-jedick", options)
    assert [(p.sentence1, p.label) for p in pairs] == [
        ("Drug X lowered systolic pressure by 10 mmHg. The effect lasted 12 weeks.", 0),
        ("Drug X lowered systolic pressure by 10 mmHg.", 1),
    ]


def test_healthfc_reads_the_file_with_its_byte_order_mark():
    options = {"labels": {"0": "entailment", "1": "neutral", "2": "contradiction"}, "skip_labels": []}
    pairs = load("healthfc", ROOT / "healthfc/Datensatz.csv", options)
    assert [(p.sentence2, p.nli_label) for p in pairs] == [
        ("Does walking lower blood pressure?", "entailment"),
        ("Does garlic cure colds?", "contradiction"),
        ("Does tea prevent cancer?", "neutral"),
    ]


def test_gold_pairs_carry_how_they_were_made():
    pairs = load("gold", ROOT / "gold/gold_dev.jsonl", None)
    assert len(pairs) == 8 and sum(p.label for p in pairs) == 2
    assert pairs[2].facet("source") == "rule_cross" and pairs[2].facet("operator") == "negation_insert"
    assert pairs[0].facet("operator") is None and pairs[5].facet("garbled") == "1"
    assert pairs[2].group == "1002" and pairs[2].key == "g3"


def test_a_gold_item_whose_flag_disagrees_with_its_label_is_refused(tmp_path):
    path = tmp_path / "gold.jsonl"
    text = (ROOT / "gold/gold_dev.jsonl").read_text().splitlines()
    text[1] = text[1].replace('"contradiction": 0', '"contradiction": 1')
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(
        InputFormatError, match=r"gold.jsonl:2: contradiction 1 disagrees with gold 'neutral'"
    ):
        load("gold", path, None)


# ---- the labelled root and the teacher's use of it -------------------------------------------------

MNLI = {
    "kind": "nli_table",
    "path": "nli-datasets/mnli/dev.csv",
    "options": TABLE,
    "weight": 1.0,
    "cap": None,
}


def test_relative_paths_resolve_in_the_labelled_root_and_caps_take_a_seeded_sample():
    params = section("teacher", TeacherParams, labelled={"mnli": {**MNLI, "cap": 4}})
    candidates, counts = labelled_candidates(params, str(ROOT))
    assert counts == {"mnli": 4} and len(candidates) == 4
    assert candidates == labelled_candidates(params, str(ROOT))[0]  # seeded
    assert {c.generator for c in candidates} == {"labelled:mnli"}


def test_a_labelled_set_missing_from_the_root_stops_the_stage_with_the_root_named(tmp_path):
    params = section("teacher", TeacherParams, labelled={"mnli": MNLI})
    with pytest.raises(
        FileNotFoundError, match=f"file not found: nli-datasets/mnli/dev.csv .*{tmp_path}"
    ) as stopped:
        labelled_candidates(params, str(tmp_path))
    assert "python -m scicon.labelled list" in str(stopped.value)  # where local copies go, offline


def test_weights_repeat_training_rows_with_unique_ids():
    from scicon.records.dataset import Example

    params = section("teacher", TeacherParams, labelled={"mnli": {**MNLI, "weight": 2.5}})
    rows = [
        Example(
            example_id=f"labelled:mnli:{i}",
            pmid="p",
            sentence1="a",
            sentence2="b",
            label=i % 2,
            generator="labelled:mnli",
            split="train",
        )  # fmt: skip
        for i in range(200)
    ] + [
        Example(
            example_id="o",
            pmid="q",
            sentence1="a",
            sentence2="c",
            label=0,
            generator="original",
            split="train",
        )
    ]
    out = weighted(rows, params, seed=1)
    assert len({e.example_id for e in out}) == len(out)
    assert sum(e.generator == "original" for e in out) == 1
    assert 450 <= sum(e.generator == "labelled:mnli" for e in out) <= 550  # 2.5 copies on average


def test_a_teacher_with_neither_dag_sources_nor_labelled_sets_is_refused():
    with pytest.raises(ValueError, match="nothing to learn from"):
        section("teacher", TeacherParams, train=True, sources=[], labelled={})


def test_the_labelled_spec_requires_its_weight():
    with pytest.raises(Exception, match="weight"):
        LabelledSpec(kind="nli_table", path="x", options={}, cap=None)


# ---- named downloads ---------------------------------------------------------------------------------


def _served_source(folder: Path, url: str, digest: str | None = None) -> LabelledSource:
    file = ROOT / "sick/SICK.txt"
    shutil.copy(file, folder / "SICK.txt")
    (real,) = hash_file(file, "sha256")
    return LabelledSource(
        "sick", "test", "test", (SourceFile("sick/SICK.txt", f"{url}/SICK.txt", digest or real),)
    )


def test_a_named_source_downloads_into_the_root_verified(file_server, tmp_path, monkeypatch, cache_dir):
    folder, url = file_server
    monkeypatch.setitem(SOURCES, "sick", _served_source(folder, url))
    root = tmp_path / "labelled"
    (placed,) = downloads.download(["sick"], root)
    assert placed == root / "sick/SICK.txt"
    assert placed.read_bytes() == (ROOT / "sick/SICK.txt").read_bytes()
    assert downloads.download(["sick"], root) == [placed]  # in place: kept, not fetched again


def test_a_checksum_mismatch_is_refused_and_nothing_is_placed(file_server, tmp_path, monkeypatch, cache_dir):
    folder, url = file_server
    monkeypatch.setitem(SOURCES, "sick", _served_source(folder, url, digest="0" * 64))
    root = tmp_path / "labelled"
    with pytest.raises(ChecksumMismatchError, match="sha256 mismatch"):
        downloads.download(["sick"], root)
    assert not (root / "sick/SICK.txt").exists()


def test_the_command_reports_a_refused_download_in_one_error_line(
    file_server, tmp_path, monkeypatch, cache_dir, capsys
):
    folder, url = file_server
    monkeypatch.setitem(SOURCES, "sick", _served_source(folder, url, digest="0" * 64))
    with pytest.raises(SystemExit) as stopped:
        downloads.main(["download", "sick", "--root", str(tmp_path / "labelled")])
    assert stopped.value.code == 1
    said = capsys.readouterr().err
    assert said.strip().splitlines()[-1].startswith("error: ") and "sha256 mismatch" in said
    assert "Traceback" not in said


def test_an_unreachable_source_says_where_a_local_copy_goes(tmp_path, monkeypatch, cache_dir):
    served = _served_source(tmp_path, "http://127.0.0.1:9")
    monkeypatch.setitem(SOURCES, "sick", served)
    monkeypatch.setattr("scicon.corpus.download.time.sleep", lambda seconds: None)
    with pytest.raises(DownloadError, match="download failed") as failed:
        downloads.download(["sick"], tmp_path / "labelled")
    assert f"put it at {tmp_path / 'labelled/sick/SICK.txt'} (sha256 {served.files[0].sha256})" in str(
        failed.value
    )


def test_a_different_file_already_in_the_root_is_not_overwritten(tmp_path, monkeypatch):
    monkeypatch.setitem(SOURCES, "sick", _served_source(tmp_path, "http://127.0.0.1:9", digest="1" * 64))
    mine = tmp_path / "labelled/sick/SICK.txt"
    mine.parent.mkdir(parents=True)
    mine.write_text("my own copy")
    with pytest.raises(ChecksumMismatchError, match="move it away"):
        downloads.download(["sick"], tmp_path / "labelled")
    assert mine.read_text() == "my own copy"


def test_every_named_source_pins_a_digest_and_an_https_location():
    for source in SOURCES.values():
        assert source.licence and source.files
        for file in source.files:
            assert file.url.startswith("https://") and "//" not in file.url.removeprefix("https://")
            assert len(file.sha256) == 64 and not Path(file.path).is_absolute()


def test_the_benchmark_downloads_land_where_evaluate_looks_for_them():
    from tests.params_defaults import section_values

    benchmarks = section_values("evaluate")["benchmarks"]
    expected = {"healthver": benchmarks["healthver_dev"]["path"], "nli4ct": benchmarks["nli4ct_dev"]["path"]}
    for name, default_path in expected.items():
        source = SOURCES[name]
        assert source.purpose == "evaluation"
        assert [f"data/benchmarks/{file.path}" for file in source.files] == [default_path]
    assert {source.purpose for source in SOURCES.values()} == {"training", "evaluation"}
