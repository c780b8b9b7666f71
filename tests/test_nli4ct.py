"""NLI4CT loader on a fictional release shaped exactly like the real one, zipped and unpacked.

The fixture folder (tests/fixtures/benchmarks/nli4ct) holds what ``training_data.zip``
unpacks to: statement files ``dev.json`` / ``train.json`` and trial reports
``CT json/NCT*.json``; the zip built here adds the archive debris the real one has
(``__MACOSX/`` resource forks, a ``.DS_Store``, directory entries).
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from scicon.errors import InputFormatError
from scicon.evaluate.benchmarks import load_benchmarks
from scicon.readers.nli4ct import Nli4ctOptions, load_nli4ct
from scicon.readers.sets import SetSpec
from scicon.records.benchmark import Benchmark

DEV_IDS = [f"3f1c2a10-000{i}-4a6e-9d1e-00000000000{i}" for i in range(1, 5)]


@pytest.fixture
def release_folder(fixtures, tmp_path) -> Path:
    folder = tmp_path / "training_data"
    shutil.copytree(fixtures / "benchmarks" / "nli4ct", folder)
    return folder


def zip_release(folder: Path, target: Path, leave_out: tuple[str, ...] = ()) -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        archive.writestr("CT json/", b"")
        archive.writestr("__MACOSX/._CT json", b"\x00\x05\x16\x07")
        archive.writestr("CT json/.DS_Store", b"\x00\x00\x00\x01Bud1")
        for path in sorted(folder.rglob("*.json")):
            member = path.relative_to(folder).as_posix()
            if member in leave_out:
                continue
            archive.write(path, member)
            archive.writestr(
                f"__MACOSX/{Path(member).parent.as_posix()}/._{path.name}".replace("/./", "/"), b"\x00"
            )
    return target


def options(split: str = "dev") -> Nli4ctOptions:
    return Nli4ctOptions(split=split)


def test_zip_and_folder_give_the_same_pairs(release_folder, tmp_path):
    from_folder = load_nli4ct(release_folder, options())
    from_zip = load_nli4ct(zip_release(release_folder, tmp_path / "training_data.zip"), options())
    assert from_zip == from_folder
    assert [p.key for p in from_zip] == [f"dev:{i}" for i in DEV_IDS]
    assert [p.label for p in from_zip] == [0, 1, 1, 0]  # Contradiction is 1, Entailment 0
    assert [p.group for p in from_zip] == ["NCT09000001", "NCT09000002", "NCT09000002", "NCT09000001"]


def test_single_statements_read_the_named_section_of_the_primary_trial(release_folder):
    single = load_nli4ct(release_folder, options())[0]
    assert single.sentence1 == (
        "Primary trial: Adverse Events 1: Total: 3/40 (7.50%) Myalgia 2/40 (5.00%) Headache 1/40 (2.50%)"
    )
    assert single.sentence2 == "Myalgia was the most common adverse event in the primary trial."


def test_comparison_statements_read_both_trials_each_named(release_folder):
    comparison = load_nli4ct(release_folder, options())[1]
    assert comparison.sentence1 == (
        "Primary trial: Inclusion Criteria: Histologically confirmed breast cancer "
        "Exclusion Criteria: Prior chemotherapy "
        "Secondary trial: Inclusion Criteria: Children aged 6 to 12 years with asthma"
    )


def test_the_split_option_names_the_statements_file(release_folder):
    train = load_nli4ct(release_folder, options("train"))
    assert [p.key.split(":")[0] for p in train] == ["train", "train"] and [p.label for p in train] == [1, 0]
    with pytest.raises(InputFormatError, match=r"no statements file test\.json \(found: dev, train\)"):
        load_nli4ct(release_folder, options("test"))


def test_registered_loader_takes_the_zip_through_params(release_folder, tmp_path):
    archive = zip_release(release_folder, tmp_path / "training_data.zip")
    spec = SetSpec(kind="nli4ct", path=str(archive), options={"split": "dev"})
    loaded = load_benchmarks({"nli4ct_dev": spec})["nli4ct_dev"]
    assert isinstance(loaded, Benchmark) and loaded.labels == [0, 1, 1, 0]


def test_a_missing_trial_report_names_the_statement_and_the_trial(release_folder, tmp_path):
    archive = zip_release(release_folder, tmp_path / "t.zip", leave_out=("CT json/NCT09000003.json",))
    with pytest.raises(InputFormatError) as error:
        load_nli4ct(archive, options())
    message = str(error.value)
    assert message.startswith(f"{archive}/dev.json: statement {DEV_IDS[1]}: trial NCT09000003 has no report")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"Label": None}, r"statement 3f1c2a10-0001\S* has no Label \(NLI4CT's test split has no labels\)"),
        ({"Label": "Neutral"}, r"Label 'Neutral' is not one of Contradiction, Entailment"),
        ({"Section_id": "Outcomes"}, r"Section_id 'Outcomes' is not one of Intervention, Eligibility"),
        ({"Type": "Comparison"}, r"statement 3f1c2a10-0001\S* has no Secondary_id"),
    ],
)
def test_malformed_statements_name_file_and_statement(release_folder, change, expected):
    path = release_folder / "dev.json"
    statements = json.loads(path.read_text())
    statements[DEV_IDS[0]] = {
        k: v for k, v in ({**statements[DEV_IDS[0]], **change}).items() if v is not None
    }
    path.write_text(json.dumps(statements))
    with pytest.raises(InputFormatError, match=expected) as error:
        load_nli4ct(release_folder, options())
    assert str(error.value).startswith(f"{release_folder}/dev.json: ")


def test_a_section_that_is_not_a_list_of_lines_names_the_trial_file(release_folder):
    report = release_folder / "CT json" / "NCT09000001.json"
    trial = json.loads(report.read_text())
    trial["Adverse Events"] = "Total: 3/40"
    report.write_text(json.dumps(trial))
    with pytest.raises(
        InputFormatError, match=r"NCT09000001\.json: section 'Adverse Events' \(statement 3f1c"
    ):
        load_nli4ct(release_folder, options())


def test_a_file_that_is_not_a_release(tmp_path):
    path = tmp_path / "training_data.zip"
    path.write_text("not a zip")
    with pytest.raises(InputFormatError, match="neither a zip archive nor a folder"):
        load_nli4ct(path, options())
