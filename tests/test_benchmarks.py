"""Benchmark loaders on small fixtures in the real formats, skipping, and the hard variant.

NLI4CT has its own file (tests/test_nli4ct.py).
"""

from __future__ import annotations

import shutil

import pytest

from scicon.errors import InputFormatError, ParamsError
from scicon.evaluate.benchmarks import Skipped, load_benchmarks
from scicon.evaluate.loaders import BENCHMARK_LOADERS as LOADERS
from scicon.evaluate.loaders.hard import harden
from scicon.io import write_jsonl
from scicon.negation import remove_negation
from scicon.readers.sets import SetSpec
from scicon.records.benchmark import Benchmark
from scicon.records.dataset import Example

# every option of every loader is stated, as in params.yaml (the only place defaults live)
MEDNLI = {"specialty": None, "keywords": None}
HEALTHVER = {"contradiction": ["Refutes"]}
HARD = {"negation_words": None}


def spec(kind, path=None, **options) -> SetSpec:
    return SetSpec(kind=kind, path=None if path is None else str(path), options=options)


def test_every_loader_is_registered_with_its_options():
    from tests.params_defaults import section_values

    named = {spec["kind"] for spec in section_values("evaluate")["benchmarks"].values()}
    named.add(section_values("gold")["kind"])
    assert named <= set(LOADERS.names()), "params.yaml names a loader kind that is not registered"
    assert LOADERS["hard"].facts.derived and LOADERS["nli4ct"].facts.reads_folders
    assert LOADERS["mancon"].settings is None and LOADERS["csv"].settings.model_fields["delimiter"]


@pytest.fixture
def bench(fixtures):
    return fixtures / "benchmarks"


def test_healthver_refutes_is_contradiction(bench):
    result = load_benchmarks({"healthver": spec("healthver", bench / "healthver_dev.csv", **HEALTHVER)})[
        "healthver"
    ]
    assert isinstance(result, Benchmark)
    assert result.labels == [1, 0, 0, 1]
    first = result.pairs[0]
    assert first.sentence1.startswith("Vitamin X supplementation")  # evidence first, claim second
    assert first.sentence2 == "Vitamin X increases viral load"
    assert '"the authors"' in result.pairs[1].sentence1  # quoted CSV field kept intact
    # keys name the file, not its path (which differs between machines), and the line
    assert result.pairs[3].key == "healthver_dev.csv:5"
    assert first.group == first.sentence2  # grouped by claim


def test_mednli_merges_entailment_and_neutral_and_selects_specialties(bench):
    path = bench / "mli_test_v1.jsonl"
    loaded = load_benchmarks(
        {
            "mednli": spec("mednli", path, **MEDNLI),
            "cardiology": spec("mednli", path, **MEDNLI | {"specialty": "cardiology"}),
            "obstetrics": spec("mednli", path, **MEDNLI | {"specialty": "obstetrics"}),
            "surgery": spec("mednli", path, **MEDNLI | {"specialty": "surgery"}),
            "endocrinology": spec("mednli", path, **MEDNLI | {"specialty": "endocrinology"}),
            "custom": spec("mednli", path, **MEDNLI | {"keywords": ["warfarin", "appendectomy"]}),
        }
    )
    assert loaded["mednli"].labels == [0, 1, 1, 0, 0, 0, 1]
    assert [p.key for p in loaded["cardiology"].pairs] == ["mli_test_v1.jsonl:1", "mli_test_v1.jsonl:2"]
    assert loaded["mednli"].pairs[0].group == loaded["mednli"].pairs[0].sentence1  # grouped by premise
    assert loaded["obstetrics"].labels == [1, 0]
    assert [p.key.rsplit(":", 1)[1] for p in loaded["surgery"].pairs] == ["7", "8"]
    # only entailments: ROC-AUC is undefined, so the subset is skipped, not scored
    assert isinstance(loaded["endocrinology"], Skipped)
    assert "needs both classes" in loaded["endocrinology"].reason
    assert len(loaded["custom"].pairs) == 4


def test_mancon_pairs_claims_of_the_same_question(bench):
    result = load_benchmarks({"cardio": spec("mancon", bench / "ManConCorpus.xml")})["cardio"]
    # question 1: YS, NO, YS -> 3 pairs (2 contradictions); question 2: YS, NO -> 1 contradiction
    assert sorted(result.labels) == [0, 1, 1, 1]
    # one key per pair of claims, however many pairs a claim is in
    assert sorted(p.key for p in result.pairs) == [
        "ManConCorpus.xml:CLAIM#1+CLAIM#2",
        "ManConCorpus.xml:CLAIM#1+CLAIM#3",
        "ManConCorpus.xml:CLAIM#2+CLAIM#3",
        "ManConCorpus.xml:CLAIM#4+CLAIM#5",
    ]
    assert {p.group for p in result.pairs} == {
        "Does drug A reduce mortality in heart failure?",
        "Is exercise training safe after myocardial infarction?",
    }
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
            "hard_cardio": spec("hard", base="cardio", **HARD),
        }
    )
    hard, base = loaded["hard_cardio"], loaded["cardio"]
    assert hard.labels == base.labels
    assert [p.key for p in hard.pairs] == [p.key for p in base.pairs]  # comparable pair by pair
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
                group="premise",
            ),
            "jsonl": spec(
                "jsonl", jsonl, sentence1="p", sentence2="h", label="y", contradiction=["2"], group=None
            ),
        }
    )
    assert loaded["csv"].labels == [1, 0, 0]
    assert {p.group for p in loaded["csv"].pairs} == {"The drug lowered blood pressure."}
    assert loaded["jsonl"].labels == [1, 0]
    assert [p.key for p in loaded["jsonl"].pairs] == ["pairs.jsonl:1", "pairs.jsonl:2"]
    assert loaded["jsonl"].pairs[0].group is None


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
    loaded = load_benchmarks({"scicon_test": spec("scicon", path)})["scicon_test"]
    assert loaded.labels == [0, 1, 0, 1]
    assert [p.key for p in loaded.pairs] == ["e0", "e1", "e2", "e3"] and loaded.pairs[0].group == "1"


def test_absent_files_are_skipped_and_so_are_their_hard_variants(tmp_path):
    loaded = load_benchmarks(
        {
            "mednli": spec("mednli", tmp_path / "nowhere" / "mli_test_v1.jsonl", **MEDNLI),
            "hard_mednli": spec("hard", base="mednli", **HARD),
            "unset": spec("healthver", **HEALTHVER),
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
        load_benchmarks({"m": spec("mednli", bad_jsonl, **MEDNLI)})

    truncated = tmp_path / "t.jsonl"
    truncated.write_text(
        '{"sentence1": "x", "sentence2": "y", "gold_label": "neutral"}\n{"sentence1": "x"', encoding="utf-8"
    )
    with pytest.raises(InputFormatError, match=r"t\.jsonl:2: not valid JSON"):
        load_benchmarks({"m": spec("mednli", truncated, **MEDNLI)})

    bad_csv = tmp_path / "hv.csv"
    bad_csv.write_text("evidence,claim,label\nE one.,C one.,Refutes\nE two.,,Supports\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"hv\.csv:3: column 'claim' is missing or empty"):
        load_benchmarks({"h": spec("healthver", bad_csv, **HEALTHVER)})

    bad_xml = tmp_path / "m.xml"
    bad_xml.write_text(
        "<ManConCorpus><ABSTRACT><CLAIM QUESTION='q' ASSERTION='MAYBE'>x</CLAIM></ABSTRACT></ManConCorpus>",
        encoding="utf-8",
    )
    with pytest.raises(InputFormatError, match="CLAIM #1 needs"):
        load_benchmarks({"c": spec("mancon", bad_xml)})


def test_bad_benchmark_params_name_the_key(bench):
    with pytest.raises(ParamsError, match=r"evaluate\.benchmarks\.x\.kind: unknown benchmark loader 'tsv'"):
        load_benchmarks({"x": spec("tsv", bench / "generic.csv")})
    with pytest.raises(ParamsError, match=r"evaluate\.benchmarks\.m\.options\.specialty"):
        load_benchmarks(
            {"m": spec("mednli", bench / "mli_test_v1.jsonl", **MEDNLI | {"specialty": "dermatology"})}
        )
    with pytest.raises(ParamsError, match=r"evaluate\.benchmarks\.m\.options\.keywords: Field required"):
        load_benchmarks({"m": spec("mednli", bench / "mli_test_v1.jsonl", specialty=None)})
    with pytest.raises(
        ParamsError, match=r"evaluate\.benchmarks\.c\.options: benchmark loader 'mancon' takes no settings"
    ):
        load_benchmarks({"c": spec("mancon", bench / "ManConCorpus.xml", strict=True)})
    with pytest.raises(ParamsError, match=r"evaluate\.benchmarks\.h\.options\.base"):
        load_benchmarks({"h": spec("hard", base="missing", **HARD)})


def test_a_folder_given_to_a_file_loader_is_named(tmp_path):
    with pytest.raises(InputFormatError, match="is a folder; the healthver loader reads a file"):
        load_benchmarks({"h": spec("healthver", tmp_path, **HEALTHVER)})
