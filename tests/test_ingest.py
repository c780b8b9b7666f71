"""The ingest step: skips are counted and recorded, sampling is seeded, URLs are verified."""

from __future__ import annotations

import hashlib

import pytest

from scicon.corpus import ingest
from scicon.corpus.params import IngestParams
from scicon.errors import ChecksumMismatchError, InputFormatError
from tests.params_defaults import section

CORPUS = """###A1
RESULTS\tFirst abstract result.
CONCLUSIONS\tFirst abstract conclusion.

###A2

###A3
CONCLUSIONS\tThird abstract conclusion.

###A1
RESULTS\tA repeated PMID with different text.
"""


def corpus_file(tmp_path, text=CORPUS):
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_empty_abstracts_and_duplicate_pmids_are_counted_not_dropped_silently(tmp_path):
    result = ingest(section("ingest", IngestParams, source=str(corpus_file(tmp_path))), cache_dir=tmp_path)
    assert [a.pmid for a in result.abstracts] == ["A1", "A3"]
    assert result.abstracts[0].sentences[0].text == "First abstract result."  # first A1 wins
    assert [(s.reason, s.where.rsplit(":", 1)[1]) for s in result.skipped] == [
        ("empty_abstract", "5"),
        ("duplicate_pmid", "10"),
    ]
    assert "first read at" in result.skipped[1].detail and result.skipped[1].detail.endswith(":1")
    metrics = result.metrics
    assert metrics["abstracts"] == 2
    assert metrics["skipped"]["empty_abstract"] == 1
    assert metrics["skipped"]["duplicate_pmid"] == 1
    assert metrics["sentences_per_role"] == {
        "background": 0,
        "objective": 0,
        "methods": 0,
        "results": 1,
        "conclusions": 2,
    }
    assert metrics["source_sha256"] == hashlib.sha256(CORPUS.encode()).hexdigest()


def many_abstracts(tmp_path, count=50):
    lines = [f"###{n:03d}\nRESULTS\tResult {n}.\nCONCLUSIONS\tConclusion {n}.\n" for n in range(count)]
    return corpus_file(tmp_path, "\n".join(lines))


def test_sampling_is_seeded_and_keeps_file_order(tmp_path):
    path = str(many_abstracts(tmp_path))
    first = ingest(section("ingest", IngestParams, source=path, max_abstracts=10, seed=1), cache_dir=tmp_path)
    again = ingest(section("ingest", IngestParams, source=path, max_abstracts=10, seed=1), cache_dir=tmp_path)
    other = ingest(section("ingest", IngestParams, source=path, max_abstracts=10, seed=2), cache_dir=tmp_path)
    pmids = [a.pmid for a in first.abstracts]
    assert len(pmids) == 10 and pmids == sorted(pmids)
    assert pmids == [a.pmid for a in again.abstracts]
    assert pmids != [a.pmid for a in other.abstracts]
    assert first.metrics["abstracts_sampled_out"] == 40


def test_sample_larger_than_corpus_keeps_everything(tmp_path):
    result = ingest(
        section("ingest", IngestParams, source=str(many_abstracts(tmp_path, 5)), max_abstracts=10),
        cache_dir=tmp_path,
    )
    assert len(result.abstracts) == 5 and result.metrics["abstracts_sampled_out"] == 0


def test_a_corpus_with_no_usable_abstract_is_an_error(tmp_path):
    path = corpus_file(tmp_path, "###1\n\n###2\n")
    with pytest.raises(InputFormatError, match="no usable abstracts"):
        ingest(section("ingest", IngestParams, source=str(path)), cache_dir=tmp_path)


def test_url_source_with_correct_and_wrong_checksum(file_server, tmp_path):
    folder, base = file_server
    (folder / "rct.txt").write_text(CORPUS, encoding="utf-8")
    digest = hashlib.sha256(CORPUS.encode()).hexdigest()
    good = ingest(
        section("ingest", IngestParams, source=f"{base}/rct.txt", sha256=digest), cache_dir=tmp_path / "c1"
    )
    assert [a.pmid for a in good.abstracts] == ["A1", "A3"]
    assert good.metrics["source_checksum_pinned"] is True
    with pytest.raises(ChecksumMismatchError, match="sha256 mismatch"):
        ingest(
            section("ingest", IngestParams, source=f"{base}/rct.txt", sha256="a" * 64),
            cache_dir=tmp_path / "c2",
        )
