"""Each input format the ingest stage reads, and each way it can be malformed."""

from __future__ import annotations

import gzip
import shutil
import zipfile
from pathlib import Path

import py7zr
import pytest

from scicon.corpus.model import RawAbstract
from scicon.corpus.readers import read_corpus
from scicon.errors import InputFormatError
from scicon.records.base import Skip
from scicon.records.corpus import Role


def abstracts_of(path: Path, **options) -> list[RawAbstract]:
    return [item for item in read_corpus(path, **options) if isinstance(item, RawAbstract)]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --- PubMed RCT line format -------------------------------------------------------


def test_plain_rct_text_keeps_order_roles_and_origin(fixtures):
    abstracts = abstracts_of(fixtures / "rct_plain.txt")
    assert [a.pmid for a in abstracts] == ["T0001", "T0002", "T0003"]
    first = abstracts[0]
    assert [s.role for s in first.sentences] == [
        Role.BACKGROUND,
        Role.METHODS,
        Role.RESULTS,
        Role.RESULTS,
        Role.CONCLUSIONS,
        Role.CONCLUSIONS,
    ]
    assert first.sentences[2].text == (
        "Major bleeding occurred in 4% of the velanoxet group and 9% of the warfarin group (P = 0.02)."
    )
    # the header of T0001 is on line 3, after the comment and a blank line
    assert first.origin.endswith("rct_plain.txt:3")
    assert first.detokenized == 0


def test_tokenised_release_text_is_detokenised(fixtures):
    first, second = abstracts_of(fixtures / "rct_release_tokenised.txt")
    assert first.sentences[0].text == (
        "Knee osteoarthritis (OA) causes pain, stiffness and disability in older adults."
    )
    assert (
        first.sentences[1].text
        == "Pain scores improved by @ points with cardiprazine compared with placebo (P < @)."
    )
    assert first.detokenized == 3
    # a sentence with no comma still ends in " ." and is recognised as tokenised
    assert second.sentences[0].text == "Serum IL-@ levels were lower in the treatment group."


def test_detokenize_never_keeps_release_text(fixtures):
    first = abstracts_of(fixtures / "rct_release_tokenised.txt", detokenize="never")[0]
    assert first.sentences[0].text.endswith("older adults .")


def test_roles_are_read_case_insensitively_and_crlf_is_accepted(tmp_path):
    path = tmp_path / "crlf.txt"
    path.write_bytes(b"###1\r\nresults\tA finding was made.\r\nConclusions\tIt matters.\r\n")
    (abstract,) = abstracts_of(path)
    assert [s.role for s in abstract.sentences] == [Role.RESULTS, Role.CONCLUSIONS]
    assert abstract.sentences[1].text == "It matters."


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("###1\nRESULTS\tFine.\nFINDINGS\tUnknown role.\n", 3, "unknown role 'FINDINGS'"),
        ("# comment\nRESULTS\tNo header yet.\n###1\n", 2, "sentence line before any '###<PMID>' header"),
        ("###1\nRESULTS no tab here\n", 2, "found no tab"),
        ("###\nRESULTS\tA.\n", 1, "does not hold one PMID"),
        ("###1 2\nRESULTS\tA.\n", 1, "does not hold one PMID"),
        ("###1\nRESULTS\t   \n", 2, "empty RESULTS sentence"),
    ],
)
def test_malformed_rct_text_names_file_and_line(tmp_path, text, line, message):
    path = write(tmp_path / "bad.txt", text)
    with pytest.raises(InputFormatError) as caught:
        abstracts_of(path)
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert message in str(caught.value)


def test_non_utf8_text_names_the_line(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"###1\nRESULTS\tFine.\nRESULTS\tCaf\xe9 au lait.\n")
    with pytest.raises(InputFormatError, match=r"latin1.txt:3: not UTF-8"):
        abstracts_of(path)


def test_gzipped_rct_text(tmp_path, fixtures):
    path = tmp_path / "corpus.txt.gz"
    path.write_bytes(gzip.compress((fixtures / "rct_plain.txt").read_bytes()))
    assert [a.pmid for a in abstracts_of(path)] == ["T0001", "T0002", "T0003"]


def test_truncated_gzip_is_a_format_error(tmp_path, fixtures):
    data = gzip.compress((fixtures / "rct_plain.txt").read_bytes())
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputFormatError, match="cut.txt.gz: corrupt or truncated"):
        abstracts_of(path)


# --- archives -----------------------------------------------------------------------


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_zip_with_one_member(tmp_path, fixtures):
    path = make_zip(tmp_path / "rct.zip", {"train.txt": (fixtures / "rct_plain.txt").read_bytes()})
    abstracts = abstracts_of(path)
    assert len(abstracts) == 3
    assert abstracts[0].origin.endswith("rct.zip!train.txt:3")


def test_zip_member_chosen_by_split(tmp_path, fixtures):
    data = (fixtures / "rct_plain.txt").read_bytes()
    path = make_zip(
        tmp_path / "rct.zip", {"PubMed/train.txt": data, "PubMed/dev.txt": b"###D1\nRESULTS\tDev only.\n"}
    )
    assert [a.pmid for a in abstracts_of(path, member="dev")] == ["D1"]
    with pytest.raises(InputFormatError, match="holds 2 files.*ingest.split"):
        abstracts_of(path)
    with pytest.raises(InputFormatError, match="has no member 'test'"):
        abstracts_of(path, member="test")


def test_bad_zip_archive(tmp_path):
    path = write(tmp_path / "broken.zip", "this is not a zip archive")
    with pytest.raises(InputFormatError, match="broken.zip: not a valid zip archive"):
        abstracts_of(path)


def test_error_inside_zip_member_names_member_and_line(tmp_path):
    path = make_zip(tmp_path / "rct.zip", {"train.txt": b"###1\nRESULT\tTypo in role.\n"})
    with pytest.raises(InputFormatError, match=r"rct.zip!train.txt:2: unknown role 'RESULT'"):
        abstracts_of(path)


def test_7z_archive_like_the_200k_train_split(tmp_path, fixtures):
    shutil.copy(fixtures / "rct_plain.txt", tmp_path / "train.txt")
    path = tmp_path / "train.7z"
    with py7zr.SevenZipFile(path, "w") as archive:
        archive.write(tmp_path / "train.txt", arcname="train.txt")
    abstracts = abstracts_of(path)
    assert [a.pmid for a in abstracts] == ["T0001", "T0002", "T0003"]
    assert abstracts[1].origin.endswith("train.7z!train.txt:11")


def test_bad_7z_archive(tmp_path):
    path = write(tmp_path / "train.7z", "not seven zip")
    with pytest.raises(InputFormatError, match="train.7z: not a valid 7z archive"):
        abstracts_of(path)


def test_member_requested_from_a_plain_file(tmp_path, fixtures):
    with pytest.raises(InputFormatError, match="is not an archive"):
        abstracts_of(fixtures / "rct_plain.txt", member="train")


# --- PubMed XML ---------------------------------------------------------------------


def test_pubmed_xml_gz_uses_nlm_categories(tmp_path, fixtures):
    path = tmp_path / "pubmed25n0001.xml.gz"
    path.write_bytes(gzip.compress((fixtures / "pubmed_structured.xml").read_bytes()))
    items = list(read_corpus(path))
    abstracts = [i for i in items if isinstance(i, RawAbstract)]
    skips = [i for i in items if isinstance(i, Skip)]

    (abstract,) = abstracts
    assert abstract.pmid == "99000001"
    assert [(s.role.value, s.text) for s in abstract.sentences] == [
        ("BACKGROUND", "Few options exist after two lines of therapy."),
        ("BACKGROUND", "Rovatinib is an oral kinase inhibitor."),
        ("METHODS", "Adults were randomised 2:1 to rovatinib or placebo."),
        ("RESULTS", "Median PFS was 3.9 vs. 1.8 months (HR 0.48; P < 0.001)."),
        ("RESULTS", "Hand-foot reaction was more frequent with rovatinib."),
        ("CONCLUSIONS", "Rovatinib prolonged progression-free survival."),
    ]
    assert sorted((s.reason, s.where.split()[-1]) for s in skips) == [
        ("no_abstract", "99000003"),
        ("unassigned_section", "99000001"),
        ("unstructured_abstract", "99000002"),
    ]


def test_plain_xml_is_recognised_without_the_suffix(tmp_path, fixtures):
    path = tmp_path / "export.dat"
    shutil.copy(fixtures / "pubmed_structured.xml", path)
    assert [a.pmid for a in abstracts_of(path)] == ["99000001"]


def test_malformed_xml_names_the_line(tmp_path):
    path = write(
        tmp_path / "bad.xml",
        "<PubmedArticleSet>\n<PubmedArticle>\n<MedlineCitation>\n</PubmedArticle>\n",
    )
    with pytest.raises(InputFormatError, match=r"bad.xml:4: not well-formed XML"):
        abstracts_of(path)


# ---- PubMedQA's labelled JSON ------------------------------------------------------------------


def test_pubmedqa_sections_map_by_their_headings_and_the_long_answer_is_the_conclusion(fixtures):
    items = list(read_corpus(fixtures / "pubmedqa_ori.json"))
    first, second, skipped = items
    assert [(s.role.value, s.text) for s in first.sentences] == [
        ("BACKGROUND", "Nocturnal hypoglycaemia limits insulin titration."),
        ("BACKGROUND", "Velanoxet is a new oral agent."),
        ("METHODS", "Adults with type 2 diabetes were randomised to velanoxet or placebo for 12 weeks."),
        ("RESULTS", "Nocturnal events fell from 21% to 9% with velanoxet (P = 0.01)."),
        ("RESULTS", "Weight did not change."),
        ("CONCLUSIONS", "Velanoxet reduced nocturnal hypoglycaemia."),
        ("CONCLUSIONS", "Larger trials should confirm it."),
    ]
    assert first.pmid == "90000001"
    assert [s.role.value for s in second.sentences] == ["OBJECTIVE", "METHODS", "RESULTS", "CONCLUSIONS"]
    assert isinstance(skipped, Skip) and skipped.reason == "unlabelled_sections"
    assert "2 sections, 1 headings" in skipped.detail


def test_pubmedqa_that_is_not_its_format_names_the_file(tmp_path):
    bad = tmp_path / "ori_pqal.json"
    bad.write_text('{"1": {"QUESTION": "q"}}', encoding="utf-8")
    with pytest.raises(InputFormatError, match="ori_pqal.json: PMID 1: no CONTEXTS list"):
        list(read_corpus(bad))
    bad.write_text('{"1": ', encoding="utf-8")
    with pytest.raises(InputFormatError, match="ori_pqal.json:1: not valid JSON"):
        list(read_corpus(bad))


def test_the_named_pubmedqa_source_downloads_and_ingests_from_a_real_server(
    file_server, fixtures, tmp_path, monkeypatch
):
    from scicon.corpus import sources

    folder, url = file_server
    shutil.copy(fixtures / "pubmedqa_ori.json", folder / "ori_pqal.json")
    assert sources.NAMED_SOURCES["pubmedqa-l"]["labelled"].url == (
        f"https://raw.githubusercontent.com/pubmedqa/pubmedqa/{sources.PUBMEDQA_COMMIT}/data/ori_pqal.json"
    )
    monkeypatch.setitem(
        sources.NAMED_SOURCES, "pubmedqa-l", {"labelled": sources.RemoteFile(f"{url}/ori_pqal.json")}
    )
    resolved = sources.resolve_source("pubmedqa-l", split="labelled", sha256=None, cache_dir=tmp_path)
    assert resolved.label == "pubmedqa-l/labelled"
    assert resolved.path.read_bytes() == (folder / "ori_pqal.json").read_bytes()
    assert [a.pmid for a in read_corpus(resolved.path) if isinstance(a, RawAbstract)] == [
        "90000001",
        "90000002",
    ]
