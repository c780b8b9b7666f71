"""Parsers under property-based tests: arbitrary bytes and truncated files give records or a
named error (a SciconError whose message names the file), never another exception and never
a record that the input does not hold.

Hypothesis runs derandomized (the same examples on every run) with a bounded number of
examples, so these stay fast and deterministic.
"""

from __future__ import annotations

import atexit
import gzip
import io
import shutil
import tempfile
import zipfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicon.audit.annotations import read_annotations
from scicon.corpus.readers import read_corpus
from scicon.errors import SciconError
from scicon.evaluate.loaders import BENCHMARK_LOADERS as LOADERS
from scicon.prompts import parse_rewrite
from scicon.records.base import Skip
from tests.params_defaults import section_values

REPO = Path(__file__).resolve().parent.parent
SETTINGS = settings(
    max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

VALID_RCT = (
    b"###111\n"
    b"BACKGROUND\tHeart failure is common.\n"
    b"RESULTS\tVelanoxet reduced mortality (12% vs 18%; P = 0.01).\n"
    b"CONCLUSIONS\tVelanoxet reduced mortality in heart failure.\n"
    b"\n"
    b"###222\n"
    b"METHODS\tWe randomised 200 adults.\n"
    b"CONCLUSIONS\tThe trial was feasible.\n"
)

VALID_XML = (
    b"<?xml version='1.0'?><PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>333</PMID>"
    b"<Article><Abstract><AbstractText Label='RESULTS' NlmCategory='RESULTS'>Drug X lowered"
    b" pressure.</AbstractText><AbstractText Label='CONCLUSIONS' NlmCategory='CONCLUSIONS'>Drug X"
    b" works.</AbstractText></Abstract></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>"
)


def parsed(path: Path) -> list:
    """Everything the reader yields, or the named error it raised (any other exception fails)."""
    try:
        return list(read_corpus(path))
    except SciconError as error:
        assert path.name in str(error), f"the error does not name the file: {error}"
        return []


# one folder for every example, removed at exit: each example overwrites its file
_FOLDER = Path(tempfile.mkdtemp(prefix="scicon-parsers-"))
atexit.register(shutil.rmtree, _FOLDER, True)


def written(data: bytes, name: str) -> Path:
    for stale in _FOLDER.iterdir():
        stale.unlink()
    path = _FOLDER / name
    path.write_bytes(data)
    return path


@SETTINGS
@given(data=st.binary(max_size=400), name=st.sampled_from(["corpus.txt", "corpus.xml", "corpus.txt.gz"]))
def test_arbitrary_bytes_give_records_or_an_error_naming_the_file(data, name):
    for record in parsed(written(data, name)):
        assert isinstance(record, Skip) or record.pmid


@SETTINGS
@given(text=st.text(alphabet=st.sampled_from("#\t\n 123ABCRESULTSCONCLUSIONSxyz.%é"), max_size=300))
def test_rct_like_text_gives_only_sentences_the_file_holds(text):
    for record in parsed(written(text.encode(), "corpus.txt")):
        for sentence in record.sentences:
            assert sentence.text.split()[0] in text  # a record never invents words


@SETTINGS
@given(cut=st.integers(min_value=0, max_value=len(VALID_RCT)))
def test_a_truncated_rct_file_gives_a_prefix_of_its_abstracts(cut):
    whole = {
        record.pmid: [s.text for s in record.sentences] for record in parsed(written(VALID_RCT, "c.txt"))
    }
    records = [record for record in parsed(written(VALID_RCT[:cut], "c.txt")) if record.sentences]
    # a header cut short holds no sentence: ingest skips it as an empty abstract
    for record in records:
        sentences = [s.text for s in record.sentences]
        full = whole[record.pmid]
        # every sentence but the last is whole and in order; the last may be cut mid-line
        assert sentences[:-1] == full[: len(sentences) - 1]
        assert full[len(sentences) - 1].startswith(sentences[-1])


@SETTINGS
@given(cut=st.integers(min_value=0, max_value=len(VALID_XML)))
def test_a_truncated_pubmed_xml_file_gives_its_abstract_or_an_error(cut):
    for record in parsed(written(VALID_XML[:cut], "c.xml")):
        assert isinstance(record, Skip) or record.pmid == "333"


@SETTINGS
@given(cut=st.integers(min_value=0, max_value=200))
def test_a_truncated_gzip_file_gives_records_or_an_error(cut):
    data = gzip.compress(VALID_RCT)
    for record in parsed(written(data[: min(cut, len(data))], "c.txt.gz")):
        assert record.pmid in ("111", "222")


@SETTINGS
@given(data=st.binary(max_size=300), cut=st.integers(min_value=0, max_value=400))
def test_a_damaged_zip_archive_gives_records_or_an_error(data, cut):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("corpus.txt", VALID_RCT + data)
    damaged = buffer.getvalue()[:cut] if cut < len(buffer.getvalue()) else buffer.getvalue()
    for record in parsed(written(damaged, "c.zip")):
        assert isinstance(record, Skip) or record.pmid in ("111", "222")


@SETTINGS
@given(output=st.text(max_size=300))
def test_the_rewrite_parser_returns_a_sentence_or_nothing(output):
    original = "Velanoxet reduced mortality in heart failure."
    rewrite = parse_rewrite(output, original)
    assert rewrite is None or (isinstance(rewrite, str) and rewrite.strip())


def benchmark_file_specs() -> list[tuple[str, str, dict]]:
    """(name, file suffix, options) of every file benchmark params.yaml configures."""
    specs = []
    for name, spec in section_values("evaluate")["benchmarks"].items():
        entry = LOADERS.get(spec["kind"])
        if entry.facts.derived or entry.facts.reads_folders or not spec.get("path"):
            continue
        specs.append((name, "".join(Path(spec["path"]).suffixes), spec.get("options") or {}))
    return specs


def check_loader(kind: str, key: str, suffix: str, options: dict) -> None:
    """Arbitrary bytes in a file of ``suffix`` give pairs or an error naming the file."""
    entry = LOADERS.get(kind)
    validated = entry.validate_settings(options, key)

    @SETTINGS
    @given(data=st.binary(max_size=300))
    def loads(data):
        path = written(data, f"input{suffix}")
        try:
            pairs = entry.factory(path, validated)
        except SciconError as error:
            assert path.name in str(error), f"{key}: the error does not name the file: {error}"
            return
        for pair in pairs:
            assert pair.label in (0, 1) and pair.sentence1 is not None

    loads()


@pytest.mark.parametrize(("name", "suffix", "options"), benchmark_file_specs())
def test_benchmark_loaders_give_pairs_or_an_error_naming_the_file(name, suffix, options):
    kind = section_values("evaluate")["benchmarks"][name]["kind"]
    check_loader(kind, f"evaluate.benchmarks.{name}.options", suffix, options)


def labelled_table_specs() -> list[tuple[str, str, dict]]:
    """(name, suffix, options) of the plain-table labelled sets of the real-abstracts profile."""
    profile = yaml.safe_load((REPO / "profiles" / "real-abstracts.yaml").read_text())
    labelled = profile["set"]["teacher.labelled"]
    return [
        (name, "".join(Path(spec["path"]).suffixes), spec["options"])
        for name, spec in labelled.items()
        if spec["kind"] == "nli_table"
    ]


@pytest.mark.parametrize(("name", "suffix", "options"), labelled_table_specs())
def test_labelled_table_loaders_give_pairs_or_an_error_naming_the_file(name, suffix, options):
    check_loader("nli_table", f"teacher.labelled.{name}.options", suffix, options)


@SETTINGS
@given(data=st.binary(max_size=300), suffix=st.sampled_from([".csv", ".json"]))
def test_annotation_files_give_answers_or_an_error_naming_the_file(data, suffix):
    path = written(data, f"annotator-1{suffix}")
    try:
        read_annotations(path.parent, [])
    except SciconError as error:
        assert path.name in str(error), f"the error does not name the file: {error}"
