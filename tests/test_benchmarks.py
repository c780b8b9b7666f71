"""Benchmark loaders on small fixtures in the real formats, skipping, and the hard variant."""

from __future__ import annotations

import shutil

import pytest

from scicon.errors import InputFormatError, ParamsError
from scicon.evaluate import Benchmark, Skipped, load_benchmarks
from scicon.evaluate.benchmarks import harden
from scicon.evaluate.params import BenchmarkSpec
from scicon.io import write_jsonl
from scicon.negation import remove_negation
from scicon.records.dataset import Example


def spec(kind, path=None, **options) -> BenchmarkSpec:
    return BenchmarkSpec(kind=kind, path=None if path is None else str(path), options=options)


@pytest.fixture
def bench(fixtures):
    return fixtures / "benchmarks"


def test_healthver_refutes_is_contradiction(bench):
    result = load_benchmarks({"healthver": spec("healthver", bench / "healthver_dev.csv")})["healthver"]
    assert isinstance(result, Benchmark)
    assert result.labels == [1, 0, 0, 1]
    first = result.pairs[0]
    assert first.sentence1.startswith("Vitamin X supplementation")  # evidence first, claim second
    assert first.sentence2 == "Vitamin X increases viral load"
    assert '"the authors"' in result.pairs[1].sentence1  # quoted CSV field kept intact
    assert result.pairs[3].origin.endswith("healthver_dev.csv:5")


def test_mednli_merges_entailment_and_neutral_and_selects_specialties(bench):
    path = bench / "mli_test_v1.jsonl"
    loaded = load_benchmarks(
        {
            "mednli": spec("mednli", path),
            "cardiology": spec("mednli", path, specialty="cardiology"),
            "obstetrics": spec("mednli", path, specialty="obstetrics"),
            "surgery": spec("mednli", path, specialty="surgery"),
            "endocrinology": spec("mednli", path, specialty="endocrinology"),
            "custom": spec("mednli", path, keywords=["warfarin", "appendectomy"]),
        }
    )
    assert loaded["mednli"].labels == [0, 1, 1, 0, 0, 0, 1]
    assert [p.origin.rsplit(":", 1)[1] for p in loaded["cardiology"].pairs] == ["1", "2"]
    assert loaded["obstetrics"].labels == [1, 0]
    assert [p.origin.rsplit(":", 1)[1] for p in loaded["surgery"].pairs] == ["7", "8"]
    # only entailments: ROC-AUC is undefined, so the subset is skipped, not scored
    assert isinstance(loaded["endocrinology"], Skipped)
    assert "needs both classes" in loaded["endocrinology"].reason
    assert len(loaded["custom"].pairs) == 4


def test_mancon_pairs_claims_of_the_same_question(bench):
    result = load_benchmarks({"cardio": spec("mancon", bench / "ManConCorpus.xml")})["cardio"]
    # question 1: YS, NO, YS -> 3 pairs (2 contradictions); question 2: YS, NO -> 1 contradiction
    assert sorted(result.labels) == [0, 1, 1, 1]
    texts = {(p.sentence1, p.sentence2): p.label for p in result.pairs}
    assert (
        texts[
            (
                "Drug A significantly reduced mortality in patients with heart failure.",
                "Drug A did not reduce mortality in heart failure.",
            )
        ]
        == 1
    )
    assert (
        texts[
            (
                "Drug A significantly reduced mortality in patients with heart failure.",
                "Mortality was lower with drug A than with placebo.",
            )
        ]
        == 0
    )


def test_hard_variant_removes_negation_words(bench):
    loaded = load_benchmarks(
        {
            "cardio": spec("mancon", bench / "ManConCorpus.xml"),
            "hard_cardio": spec("hard", base="cardio"),
        }
    )
    hard, base = loaded["hard_cardio"], loaded["cardio"]
    assert hard.labels == base.labels
    joined = " ".join(p.sentence1 + " " + p.sentence2 for p in hard.pairs).lower().split()
    assert "not" not in joined and "never" not in joined
    assert "Drug A did reduce mortality in heart failure." in {p.sentence2 for p in hard.pairs}


def test_remove_negation_cases():
    assert remove_negation("No difference was found.") == "Difference was found."
    assert remove_negation("It doesn't help and cannot harm.") == "It does help and can harm."
    assert remove_negation("We won't stop.") == "We will stop."
    assert remove_negation("Neither A nor B , really.") == "A B, really."
    assert harden([])[:1] == []


def test_generic_csv_and_jsonl_with_column_mapping(bench, tmp_path):
    jsonl = tmp_path / "pairs.jsonl"
    jsonl.write_text(
        '{"p": "A rose.", "h": "A fell.", "y": 2}\n{"p": "A rose.", "h": "A went up.", "y": 0}\n',
        encoding="utf-8",
    )
    loaded = load_benchmarks(
        {
            "csv": spec(
                "csv",
                bench / "generic.csv",
                sentence1="premise",
                sentence2="hypothesis",
                label="verdict",
                contradiction=["C"],
                delimiter=";",
            ),
            "jsonl": spec("jsonl", jsonl, sentence1="p", sentence2="h", label="y", contradiction=["2"]),
        }
    )
    assert loaded["csv"].labels == [1, 0, 0]
    assert loaded["jsonl"].labels == [1, 0]


def test_scicon_split_loader(tmp_path):
    path = tmp_path / "test.jsonl"
    write_jsonl(
        path,
        [
            Example(
                example_id=f"e{i}",
                pmid="1",
                sentence1="A.",
                sentence2=f"B{i}.",
                label=i % 2,
                generator="original",
                split="test",
            )
            for i in range(4)
        ],
    )
    assert load_benchmarks({"scicon_test": spec("scicon", path)})["scicon_test"].labels == [0, 1, 0, 1]


def test_absent_files_are_skipped_and_so_are_their_hard_variants(tmp_path):
    loaded = load_benchmarks(
        {
            "mednli": spec("mednli", tmp_path / "nowhere" / "mli_test_v1.jsonl"),
            "hard_mednli": spec("hard", base="mednli"),
            "unset": spec("healthver"),
        }
    )
    assert isinstance(loaded["mednli"], Skipped) and "file not found" in loaded["mednli"].reason
    assert (
        isinstance(loaded["hard_mednli"], Skipped)
        and "base benchmark 'mednli' skipped" in loaded["hard_mednli"].reason
    )
    assert loaded["unset"].reason == "no path configured"
    assert list(loaded) == ["mednli", "hard_mednli", "unset"]


def test_malformed_rows_name_file_and_line(bench, tmp_path):
    bad_jsonl = tmp_path / "mli.jsonl"
    shutil.copy(bench / "mli_test_v1.jsonl", bad_jsonl)
    with open(bad_jsonl, "a", encoding="utf-8") as handle:
        handle.write('{"sentence1": "x", "sentence2": "y", "gold_label": "maybe"}\n')
    with pytest.raises(InputFormatError, match=r"mli\.jsonl:9: gold_label 'maybe'"):
        load_benchmarks({"m": spec("mednli", bad_jsonl)})

    truncated = tmp_path / "t.jsonl"
    truncated.write_text(
        '{"sentence1": "x", "sentence2": "y", "gold_label": "neutral"}\n{"sentence1": "x"', encoding="utf-8"
    )
    with pytest.raises(InputFormatError, match=r"t\.jsonl:2: not valid JSON"):
        load_benchmarks({"m": spec("mednli", truncated)})

    bad_csv = tmp_path / "hv.csv"
    bad_csv.write_text("evidence,claim,label\nE one.,C one.,Refutes\nE two.,,Supports\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"hv\.csv:3: column 'claim' is missing or empty"):
        load_benchmarks({"h": spec("healthver", bad_csv)})

    bad_xml = tmp_path / "m.xml"
    bad_xml.write_text(
        "<ManConCorpus><ABSTRACT><CLAIM QUESTION='q' ASSERTION='MAYBE'>x</CLAIM></ABSTRACT></ManConCorpus>",
        encoding="utf-8",
    )
    with pytest.raises(InputFormatError, match="CLAIM #1 needs"):
        load_benchmarks({"c": spec("mancon", bad_xml)})


def test_bad_benchmark_params_name_the_key(bench):
    with pytest.raises(ParamsError, match=r"evaluate\.benchmarks\.x\.kind: unknown loader 'tsv'"):
        load_benchmarks({"x": spec("tsv", bench / "generic.csv")})
    with pytest.raises(ParamsError, match=r"evaluate\.benchmarks\.m\.options\.specialty"):
        load_benchmarks({"m": spec("mednli", bench / "mli_test_v1.jsonl", specialty="dermatology")})
    with pytest.raises(ParamsError, match=r"evaluate\.benchmarks\.h\.options\.base"):
        load_benchmarks({"h": spec("hard", base="missing")})
