"""The second corpus: Evidence Inference abstracts as structured abstracts, and the doctors'
direction-of-effect answers as a labelled source of claims (fictional fixtures in the real format)."""

from __future__ import annotations

import random
import shutil
import zipfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from scicon.corpus.evidence_inference import HEADINGS_TABLE, heading_name, heading_roles
from scicon.corpus.ingest import ingest
from scicon.corpus.model import RawAbstract
from scicon.corpus.params import IngestParams
from scicon.corpus.readers import read_corpus
from scicon.corpus.sources import EVIDENCE_INFERENCE_COMMIT, NAMED_SOURCES
from scicon.errors import ChecksumMismatchError, InputFormatError
from scicon.readers.evidence_inference import (
    CLAIM_KINDS,
    DirectionOptions,
    claims_for,
    load_direction_claims,
    phrasings,
)
from scicon.records.base import Skip
from scicon.records.corpus import Role


@pytest.fixture
def articles(fixtures) -> Path:
    return fixtures / "evidence_inference"


def ingest_params(**changes) -> IngestParams:
    defaults = dict(split=None, sha256=None, max_abstracts=None, seed=1, detokenize="auto", watched="data/demo")
    return IngestParams(**(defaults | changes))


def read(path: Path, **options) -> tuple[list[RawAbstract], list[Skip]]:
    items = list(read_corpus(path, **options))
    return [i for i in items if isinstance(i, RawAbstract)], [i for i in items if isinstance(i, Skip)]


# --- the reader ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("ABSTRACT.BACKGROUND:", "BACKGROUND"),
        ("ABSTRACT.RESULTS:.", "RESULTS"),
        ("ABSTRACT.CONCLUSION::", "CONCLUSION"),
        ("ABSTRACT.ABSTRACT.OBJECTIVE.:", "OBJECTIVE"),
        ("ABSTRACT.SUMMARY.FINDINGS.", "FINDINGS"),
        ("ABSTRACT.[METHODS].", "METHODS"),
        ("ABSTRACT. MATERIAL AND   METHODS .", "MATERIAL AND METHODS"),
        ("ABSTRACT.PATIENTS AND METHODS\u2002.", "PATIENTS AND METHODS"),
        ("ABSTRACT.:", "ABSTRACT"),
        ("ABSTRACT.", "ABSTRACT"),
    ],
)
def test_headings_are_normalised_before_the_table_is_read(line, name):
    assert heading_name(line) == name


def test_the_table_maps_journal_headings_onto_the_five_roles():
    roles = heading_roles()
    assert roles["FINDINGS"] == "RESULTS" and roles["INTERPRETATION"] == "CONCLUSIONS"
    assert roles["PATIENTS AND METHODS"] == "METHODS" and roles["AIMS AND OBJECTIVES"] == "OBJECTIVE"
    assert roles["TRIAL REGISTRATION"] == "-" and roles["FUNDING"] == "-"
    assert roles["ABSTRACT"] == "unstructured"


def test_both_heading_styles_are_read_and_body_sections_dropped(articles):
    abstracts, skips = read(articles / "abstracts")
    assert [a.pmid for a in abstracts] == ["PMC1000001", "PMC1000002"]
    first, second = abstracts
    assert [s.role for s in first.sentences] == [
        Role.BACKGROUND,
        Role.BACKGROUND,
        Role.METHODS,
        Role.RESULTS,
        Role.RESULTS,
        Role.CONCLUSIONS,
    ]
    texts = " ".join(s.text for a in abstracts for s in a.sentences)
    assert "DEMO-REG-0001" not in texts  # trial registration is left out
    assert "body" not in texts.lower() and "Not read" not in texts
    assert [s.role for s in second.sentences] == [
        Role.OBJECTIVE,
        Role.METHODS,
        Role.RESULTS,
        Role.CONCLUSIONS,
    ]
    assert second.sentences[-1].text == "Cardiprazine relieves knee pain better than placebo."
    assert first.origin.endswith("PMC1000001.abst")
    # the unstructured abstract is skipped, counted, with its file and line
    (skip,) = skips
    assert skip.reason == "unstructured_abstract"
    assert skip.where.endswith("PMC1000003.abst:4")


def test_the_data_folder_or_its_abstracts_folder_both_read(articles):
    assert [a.pmid for a in read(articles)[0]] == ["PMC1000001", "PMC1000002"]


def copy_with(tmp_path: Path, articles: Path, name: str, content: bytes) -> Path:
    folder = tmp_path / "abstracts"
    shutil.copytree(articles / "abstracts", folder)
    (folder / name).write_bytes(content)
    return folder


def test_an_unknown_heading_skips_its_abstract_naming_file_and_line(tmp_path, articles):
    folder = copy_with(
        tmp_path,
        articles,
        "PMC1000009.abst",
        b"TITLE:\nA title\n\nABSTRACT.BACKGROUND:\nSome background.\n\nABSTRACT.WHOLE GENOME NEWS:\nText.\n",
    )
    abstracts, skips = read(folder)
    assert len(abstracts) == 2
    unknown = next(s for s in skips if s.reason == "unknown_heading")
    assert unknown.where.endswith("PMC1000009.abst:7")
    assert "WHOLE GENOME NEWS" in unknown.detail


def test_an_empty_section_skips_its_abstract_and_an_empty_left_out_section_does_not(tmp_path, articles):
    folder = copy_with(
        tmp_path,
        articles,
        "PMC1000009.abst",
        b"TITLE:\nT\n\nABSTRACT.BACKGROUND:\n\nABSTRACT.RESULTS:\nA result.\n",
    )
    (folder / "PMC1000010.abst").write_bytes(
        b"TITLE:\nT\n\nABSTRACT.RESULTS:\nA result.\n\n"
        b"ABSTRACT.CONCLUSIONS:\nA claim.\n\nABSTRACT.FUNDING:\n\n"
    )
    abstracts, skips = read(folder)
    assert "PMC1000010" in [a.pmid for a in abstracts]
    empty = next(s for s in skips if s.reason == "empty_section")
    assert empty.where.endswith("PMC1000009.abst:4")


def test_a_file_without_a_title_or_with_bad_bytes_stops_naming_file_and_line(tmp_path, articles):
    folder = copy_with(tmp_path, articles, "PMC1000009.abst", b"ABSTRACT.BACKGROUND:\nNo title line.\n")
    with pytest.raises(InputFormatError, match=r"PMC1000009.abst:1: expected a TITLE line"):
        read(folder)
    folder = copy_with(
        tmp_path / "b", articles, "PMC1000009.abst", b"TITLE:\nT\nABSTRACT.RESULTS:\nbad \xff byte\n"
    )
    with pytest.raises(InputFormatError, match=r"PMC1000009.abst:4: not UTF-8"):
        read(folder)
    folder = copy_with(tmp_path / "c", articles, "notes.abst", b"TITLE:\nT\n")
    with pytest.raises(InputFormatError, match=r"is not PMC<digits>.abst"):
        read(folder)


def upstream_archive(tmp_path: Path, articles: Path, test_ids: str) -> Path:
    """A zip laid out like the upstream repository's archive at the pinned commit."""
    top = f"evidence-inference-{EVIDENCE_INFERENCE_COMMIT}"
    archive = tmp_path / f"{EVIDENCE_INFERENCE_COMMIT}.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in sorted((articles / "abstracts").glob("*.abst")):
            out.write(path, f"{top}/annotations/abstracts/{path.name}")
        out.writestr(f"{top}/annotations/splits/test_article_ids.txt", test_ids)
        out.writestr(f"{top}/annotations/splits/ev2_test_article_ids.txt", "")
        out.writestr(f"{top}/annotations/txt_files/PMC1000001.txt", "full text, not read")
    return archive


def test_the_named_source_downloads_the_pinned_archive_and_leaves_out_the_test_split(
    tmp_path, articles, file_server, monkeypatch
):
    folder, base = file_server
    archive = upstream_archive(folder, articles, "1000002\n")
    url = f"{base}/{archive.name}"
    development = NAMED_SOURCES["evidence-inference"]["development"]
    assert EVIDENCE_INFERENCE_COMMIT in development.url
    monkeypatch.setitem(NAMED_SOURCES["evidence-inference"], "development", replace(development, url=url))
    params = ingest_params(source="evidence-inference")
    result = ingest(params, cache_dir=tmp_path / "cache")
    assert [a.pmid for a in result.abstracts] == ["PMC1000001"]
    assert result.metrics["source"] == "evidence-inference/development"
    assert result.metrics["skipped"]["excluded_article"] == 1
    assert result.metrics["skipped"]["unstructured_abstract"] == 1
    # the first download's digest is recorded; pinned, it is enforced
    recorded = result.metrics["source_sha256"]
    pinned = params.model_copy(update={"sha256": recorded})
    assert ingest(pinned, cache_dir=tmp_path / "cache").metrics["source_checksum_pinned"] is True
    with pytest.raises(ChecksumMismatchError):
        ingest(params.model_copy(update={"sha256": "0" * 64}), cache_dir=tmp_path / "cache-2")


def test_two_corpora_are_read_in_order_with_per_source_figures(tmp_path, articles, fixtures):
    params = ingest_params(source=[str(fixtures / "rct_plain.txt"), str(articles / "abstracts")])
    result = ingest(params, cache_dir=tmp_path)
    assert [a.pmid for a in result.abstracts] == ["T0001", "T0002", "T0003", "PMC1000001", "PMC1000002"]
    assert [s["abstracts_valid"] for s in result.metrics["sources"]] == [3, 2]
    assert result.metrics["sources"][1]["skipped"] == {"unstructured_abstract": 1}
    assert " + " in result.metrics["source"]


def test_a_list_of_splits_must_match_the_list_of_sources():
    with pytest.raises(ValueError, match="ingest.split: expected 2 entries"):
        ingest_params(source=["a", "b"], split=["x"])
    with pytest.raises(ValueError, match="one value"):
        ingest_params(source="a", split=["x"])


def test_a_folder_source_is_checksummed_by_its_files(tmp_path, articles):
    folder = tmp_path / "abstracts"
    shutil.copytree(articles / "abstracts", folder)
    params = ingest_params(source=str(folder))
    before = ingest(params, cache_dir=tmp_path).metrics["source_sha256"]
    (folder / "PMC1000003.abst").write_text(
        "TITLE:\nT\n\nABSTRACT.RESULTS:\nEdited.\n\nABSTRACT.CONCLUSIONS:\nC.\n"
    )
    after = ingest(params, cache_dir=tmp_path)
    assert after.metrics["source_sha256"] != before
    assert "PMC1000003" in [a.pmid for a in after.abstracts]


def test_every_heading_of_the_table_has_a_known_role():
    text = HEADINGS_TABLE.read_text(encoding="utf-8")
    assert "heading\trole" in text
    assert set(heading_roles().values()) <= {r.value for r in Role} | {"-", "unstructured"}


# --- the direction source ---------------------------------------------------------------


def options(**changes) -> DirectionOptions:
    values = dict(
        articles="all",
        held_out=None,
        kinds=CLAIM_KINDS,
        left_out_flags=("incorrect", "questionable"),
        min_evidence_words=6,
        max_evidence_words=80,
        min_word_share=0.6,
        max_phrase_words=12,
        seed=5,
    )
    return DirectionOptions(**(values | changes))


def test_each_kind_of_claim_gets_the_label_the_doctors_answer_implies():
    for direction, expected in [
        (
            "decrease",
            {
                "stated": "entailment",
                "direction_flipped": "contradiction",
                "no_difference": "contradiction",
                "groups_swapped": "contradiction",
                "swapped_and_flipped": "entailment",
            },
        ),
        (
            "no_difference",
            {"stated": "entailment", "difference": "contradiction", "groups_swapped": "entailment"},
        ),
    ]:
        for seed in range(12):  # every family and both orders come up
            claims = claims_for(direction, "Velanoxet", "warfarin", "Major bleeding", random.Random(seed))
            assert {c.kind: c.nli_label for c in claims} == expected
            stated = claims[0]
            assert stated.original is None
            assert all(c.original == stated.text for c in claims[1:])


def test_a_decrease_stated_in_the_verb_family_reads_as_the_doctors_said():
    family = next(p for p in phrasings() if p.family == "verb")
    rng = random.Random(0)
    while True:  # find a draw of the verb family with the intervention first
        state = rng.getstate()
        if rng.choice(phrasings()) == family and rng.random() >= 0.5:
            break
    rng.setstate(state)
    claims = {c.kind: c.text for c in claims_for("decrease", "Velanoxet", "warfarin", "Major bleeding", rng)}
    assert claims["stated"] == "Velanoxet reduced major bleeding compared with warfarin."
    assert claims["direction_flipped"] == "Velanoxet increased major bleeding compared with warfarin."
    assert claims["groups_swapped"] == "Warfarin reduced major bleeding compared with velanoxet."
    assert claims["swapped_and_flipped"] == "Warfarin increased major bleeding compared with velanoxet."
    assert claims["no_difference"] == "Velanoxet did not change major bleeding compared with warfarin."


def test_the_source_reads_valid_answers_and_counts_what_it_leaves_out(articles, caplog):
    caplog.set_level("INFO")
    pairs = load_direction_claims(articles, options())
    kinds = Counter((p.group, p.facet("answer")) for p in pairs)
    # prompt 1 (decrease, two doctors citing the same text: once), prompt 2 (no difference),
    # prompt 3 ("significantly increase"); prompt 4: rejected and a table row; 911: flagged
    # upstream; 5: the doctors disagree
    assert kinds == {
        ("PMC1000001", "decrease"): 5,
        ("PMC1000001", "no_difference"): 3,
        ("PMC1000002", "increase"): 5,
    }
    assert len({p.key for p in pairs}) == len(pairs)
    left_out = caplog.text
    for reason in (
        "answer rejected by the checking doctor",
        "evidence not a sentence",
        "prompt flagged upstream",
        "doctors disagree",
        "the same evidence for the same prompt again",
    ):
        assert reason in left_out
    stated = [p for p in pairs if p.facet("claim_kind") == "stated"]
    assert all(p.nli_label == "entailment" and p.original is None for p in stated)
    edits = [p for p in pairs if p.facet("claim_kind") != "stated"]
    assert all(p.original in {s.sentence2 for s in stated} for p in edits)


def test_held_out_articles_never_reach_the_training_share(articles, tmp_path):
    held_out = tmp_path / "held_out.txt"
    held_out.write_text("# kept out\nPMC1000002\n")
    training = load_direction_claims(articles, options(articles="training", held_out=str(held_out)))
    kept_out = load_direction_claims(articles, options(articles="held_out", held_out=str(held_out)))
    assert {p.group for p in training} == {"PMC1000001"}
    assert {p.group for p in kept_out} == {"PMC1000002"}
    with pytest.raises(InputFormatError, match="needs the held_out list"):
        load_direction_claims(articles, options(articles="training"))


def test_a_broken_answer_file_stops_with_file_and_line(articles, tmp_path):
    folder = tmp_path / "ei"
    shutil.copytree(articles, folder)
    path = folder / "v2_annotations.csv"
    path.write_text(
        path.read_text()
        + "0,1,1000001,True,True,much better,Some evidence text of the trial here.,1,UNK,1,2\n"
    )
    with pytest.raises(InputFormatError, match=r"v2_annotations.csv:\d+: Label 'much better'"):
        load_direction_claims(folder, options())
