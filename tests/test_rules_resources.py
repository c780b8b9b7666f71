"""Offline resources: WordNet from the installed Debian database, with no network, and
the NLTK folder builder that scripts/setup.sh runs."""

from __future__ import annotations

import gzip
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scicon.errors import InputFormatError, InputNotFoundError
from scicon.rules.wordnet_db import LEXNAMES_COUNT, build_nltk_wordnet, lexnames_from_manpage

# Runs in a fresh interpreter: every socket is refused and nltk.download raises, so a
# pass proves WordNet came from disk. It must be the folder scripts/setup.sh builds.
_OFFLINE_LOAD = textwrap.dedent(
    """
    import socket, sys
    def refuse(*args, **kwargs):
        raise OSError("network disabled in this test")
    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    import nltk
    def no_download(*args, **kwargs):
        raise AssertionError("nltk tried to download")
    nltk.download = no_download
    from scicon.rules import resources
    wn = resources.wordnet()
    print(wn.get_version())
    print(wn.root)
    print(sorted(a.name() for l in wn.synset("increase.v.01").lemmas() for a in l.antonyms()))
    print(wn.synsets("high", pos="a")[0].lexname())
    """
)


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parent.parent
    )


def test_wordnet_loads_from_the_installed_database_without_network():
    result = _run(_OFFLINE_LOAD)
    assert result.returncode == 0, result.stderr
    version, root, antonyms, lexname = result.stdout.splitlines()
    assert version == "3.0"
    assert Path(root) == Path(sys.prefix) / "nltk_data" / "corpora" / "wordnet"
    assert (Path(root) / "lexnames").read_text().count("\n") == LEXNAMES_COUNT
    assert antonyms == "['decrease']"
    assert lexname == "adj.all"  # read through the generated lexnames file


def test_missing_wordnet_names_setup_and_nltk_download():
    code = "import nltk; nltk.data.path[:] = ['/nonexistent']\n" + _OFFLINE_LOAD
    result = _run(code)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert "InputNotFoundError: WordNet 3.0 is not installed where NLTK looks for it (/nonexistent)" in last
    assert "scripts/setup.sh" in last and "nltk.download('wordnet')" in last


# Fresh interpreter, so every synset is read from disk: eight threads look up the
# same words at once (as evolve.workers searches do) and must find what one thread finds.
_THREADED_LOOKUPS = textwrap.dedent(
    """
    import sys
    from concurrent.futures import ThreadPoolExecutor
    from scicon.rules.operators.lexical import _wordnet_synonym, wordnet_antonyms
    WORDS = [("increase", "VERB"), ("decrease", "VERB"), ("high", "ADJ"), ("low", "ADJ"),
             ("improve", "VERB"), ("worsen", "VERB"), ("effective", "ADJ"), ("risk", "NOUN"),
             ("shorten", "VERB"), ("lengthen", "VERB"), ("significant", "ADJ"), ("reduce", "VERB"),
             ("strong", "ADJ"), ("weak", "ADJ"), ("gain", "VERB"), ("lose", "VERB")] * 4
    def look(item):
        word, pos = item
        return word, wordnet_antonyms(word, pos, any_sense=True), _wordnet_synonym(word, pos)
    workers = int(sys.argv[1])
    with ThreadPoolExecutor(workers) as pool:
        print(sorted(set(map(repr, pool.map(look, WORDS)))))
    """
)


def test_wordnet_lookups_from_threads_find_what_one_thread_finds():
    def run(workers: int) -> str:
        result = subprocess.run(
            [sys.executable, "-c", _THREADED_LOOKUPS, str(workers)],
            capture_output=True,
            text=True,
            cwd=Path(__file__).parent.parent,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    assert run(8) == run(1)


def _manpage(tmp_path: Path, rows: int = LEXNAMES_COUNT) -> Path:
    names = (
        ["adj.all", "adj.pert", "adv.all"]
        + [f"noun.n{i}" for i in range(26)]
        + [f"verb.v{i}" for i in range(15)]
    )
    names.append("adj.ppl")
    lines = [".TS", "l l l.", "\\fBFile Number\\fP\t\\fBName\\fP\t\\fBContents\\fP", "_"]
    lines += [f"{i:02d}\t{name}  \tdescription of {name}" for i, name in enumerate(names[:rows])]
    lines.append(".TE")
    path = tmp_path / "lexnames.5WN.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


def test_lexnames_are_derived_from_the_man_page(tmp_path):
    text = lexnames_from_manpage(_manpage(tmp_path))
    lines = text.splitlines()
    assert len(lines) == LEXNAMES_COUNT
    assert lines[0] == "00\tadj.all\t3"
    assert lines[2] == "02\tadv.all\t4"
    assert lines[3] == "03\tnoun.n0\t1"
    assert lines[29] == "29\tverb.v0\t2"
    assert lines[44] == "44\tadj.ppl\t3"


def test_a_truncated_man_page_is_an_error(tmp_path):
    with pytest.raises(InputFormatError, match="expected lexicographer files 00..44, found 10 rows"):
        lexnames_from_manpage(_manpage(tmp_path, rows=10))


def test_build_copies_the_database_and_writes_lexnames(tmp_path):
    source = tmp_path / "debian"
    source.mkdir()
    for name in ("data.noun", "index.noun", "noun.exc"):
        (source / name).write_text(f"contents of {name}\n")
    target = build_nltk_wordnet(source, _manpage(tmp_path), tmp_path / "nltk_data" / "corpora" / "wordnet")
    assert sorted(p.name for p in target.iterdir()) == ["data.noun", "index.noun", "lexnames", "noun.exc"]
    assert (target / "data.noun").read_text() == "contents of data.noun\n"


def test_build_without_the_debian_packages_says_what_to_install(tmp_path):
    with pytest.raises(InputNotFoundError, match="install Debian's wordnet-base and wordnet-sense-index"):
        build_nltk_wordnet(tmp_path / "missing", _manpage(tmp_path), tmp_path / "out")


def test_an_installed_tagger_model_replaces_the_lexicon_tagger(monkeypatch):
    """With a spaCy model that tags (en_core_sci_sm when installed), its tags are used.
    No model can be installed here, so a blank pipeline with a tagging component stands in."""
    import spacy
    from spacy.language import Language

    from scicon.rules import resources, tagging
    from scicon.rules.operators.negation import insert_negation

    # "Treatment" tagged as a verb: only the model could say that
    model_tags = {"Treatment": ("VBZ", "VERB"), "Pain": ("NN", "NOUN"), "scores": ("NNS", "NOUN")}

    @Language.component("test_tags")
    def tag(doc):
        for token in doc:
            token.tag_, token.pos_ = model_tags.get(token.text, ("NN", "NOUN"))
            if token.text == ".":
                token.tag_, token.pos_ = ".", "PUNCT"
        return doc

    nlp = spacy.blank("en")
    nlp.add_pipe("test_tags")
    monkeypatch.setattr(resources, "sentence_pipeline", lambda: nlp)
    tagging.analyse.cache_clear()
    try:
        result = tagging.analyse("Pain scores Treatment.")
        assert result.tagger.startswith("model:")
        assert [(t.tag, t.lemma) for t in result.tokens] == [
            ("NN", "pain"),
            ("NNS", "score"),
            ("VBZ", "treatment"),
            (".", "."),
        ]
        assert insert_negation(result, None) == [("do_support", "Pain scores does not treatment.")]
    finally:
        tagging.analyse.cache_clear()
