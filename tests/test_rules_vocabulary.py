"""The one negation vocabulary (scicon/vocabulary/negation.tsv): its named subsets, who reads
them, its format errors, and that build and evaluate can read it without the rule package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scicon import negation
from scicon.codedeps.closure import code_listing
from scicon.errors import InputFormatError
from scicon.rules.operator_sets import rule_operator
from scicon.rules.tagging import analyse
from scicon.tsv import read_table

REPO = Path(__file__).resolve().parent.parent


def texts(operator: str, sentence: str) -> list[str]:
    return [p.text for p in rule_operator(operator).propose(analyse(sentence), None)]


def test_free_standing_words_are_the_public_negation_words():
    assert negation.NEGATION_WORDS == negation.negation_words("free_standing")
    assert negation.NEGATION_WORDS == {
        "not",
        "no",
        "never",
        "neither",
        "nor",
        "none",
        "nothing",
        "nobody",
        "cannot",
    }
    assert negation.NEGATED_CONTRACTIONS == {
        "can't": "can",
        "won't": "will",
        "shan't": "shall",
        "ain't": "is",
    }
    assert negation.positive_form("Cannot") == "can" and negation.positive_form("not") is None


def test_the_subsets_nest_where_their_jobs_do():
    verbal, clause, scope = (negation.negation_words(name) for name in ("verbal", "clause", "scope"))
    assert verbal == {"not", "n't", "never"}
    assert verbal < clause < scope
    # "without", "nor", "cannot" govern what follows them but do not make a subject negative
    assert scope - clause == {"without", "nor", "cannot"}
    assert "n't" not in negation.NEGATION_WORDS  # a suffix there: is_negation("doesn't")
    assert (
        negation.is_negation("Doesn't") and negation.is_negation("NEVER") and not negation.is_negation("lack")
    )


def test_unknown_subset_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown negation subset 'negative'.*free_standing"):
        negation.negation_words("negative")


def test_every_user_reads_its_subset_of_the_table():
    from scicon.dataset.taxonomy import MUTATION_TYPES
    from scicon.rules import negation_scope, tagging

    assert tagging.VERBAL_NEGATORS == negation.negation_words("verbal")
    assert negation_scope.SCOPE_NEGATORS == negation.negation_words("scope")
    assert negation_scope.CLAUSE_NEGATORS == negation.negation_words("clause")
    negation_polarity = next(kind for kind in MUTATION_TYPES if kind.name == "negation_polarity")
    assert negation_polarity.cues == negation.NEGATION_WORDS | negation.negation_words("lexical")


def test_the_rules_treat_contracted_and_spelled_out_negation_alike():
    # a negative relative clause before the predicate: the claim is left alone either way
    assert texts("negation_insert", "The patients who did not respond had more pain.") == []
    assert texts("negation_insert", "The patients who didn't respond had more pain.") == []
    # "without" scopes over what follows it, but the subject "patients without diabetes" is not negative
    assert texts("negation_insert", "Patients without diabetes had fewer strokes.") == [
        "Patients without diabetes did not have fewer strokes."
    ]
    assert texts("polarity_lexicon", "The drug reduced pain without increasing bleeding.") == [
        "The drug increased pain without increasing bleeding."
    ]
    assert texts("polarity_lexicon", "Nothing suggested a higher risk.") == []


def test_the_vocabulary_is_read_without_the_rule_package():
    code = (
        "import sys\n"
        "import scicon.negation, scicon.dataset.taxonomy, scicon.dataset.build\n"
        "print(sorted(m for m in sys.modules if m.startswith('scicon.rules')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
    for stage in ("stages/build.py", "stages/evaluate.py"):
        files = [line.split()[0] for line in code_listing(stage).splitlines()]
        assert "scicon/vocabulary/negation.tsv" in files and "scicon/negation.py" in files
        assert not any(file.startswith("scicon/rules") for file in files), stage


@pytest.fixture
def vocabulary_file(tmp_path, monkeypatch):
    """A stand-in table for scicon.negation, caches cleared before and after."""
    path = tmp_path / "negation.tsv"
    monkeypatch.setattr(negation, "VOCABULARY", path)
    negation._vocabulary.cache_clear()
    negation.negation_words.cache_clear()
    yield path
    negation._vocabulary.cache_clear()
    negation.negation_words.cache_clear()


def test_an_unknown_subset_in_the_table_names_file_and_line(vocabulary_file):
    vocabulary_file.write_text("# comment\nword\tsubsets\tpositive\nnot\tverbal\t-\nnever\tadverbial\t-\n")
    with pytest.raises(InputFormatError, match=r"negation.tsv:4: unknown subset adverbial"):
        negation.negation_words("verbal")


def test_a_word_listed_twice_names_file_and_line(vocabulary_file):
    vocabulary_file.write_text("word\tsubsets\tpositive\nnot\tverbal\t-\nnot\tclause\t-\n")
    with pytest.raises(InputFormatError, match=r"negation.tsv:3: 'not' must be lower case and listed once"):
        negation.negation_words("clause")


def test_tables_with_a_missing_field_name_file_and_line(tmp_path):
    table = tmp_path / "table.tsv"
    table.write_text("# a table\nword\tsubsets\n\nnot\tverbal\nnever\n", encoding="utf-8")
    rows = read_table(table)
    assert next(rows).fields == {"word": "not", "subsets": "verbal"}
    with pytest.raises(InputFormatError, match=r"table.tsv:5: expected 2 tab-separated fields, found 1"):
        next(rows)
