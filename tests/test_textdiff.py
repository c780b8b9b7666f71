from scicon.textdiff import word_diff, words, words_changed


def test_words_keep_numbers_hyphens_and_percentages_whole():
    assert words("Low-dose drug cut LDL by 12.5% (P = 0.003).") == [
        "Low-dose", "drug", "cut", "LDL", "by", "12.5%", "(", "P", "=", "0.003", ")", ".",
    ]  # fmt: skip


def test_word_diff_reports_replacements_insertions_and_deletions():
    edits = word_diff(
        "Velanoxet significantly reduced pain in adults.",
        "Velanoxet did not reduce pain in adults.",
    )
    assert [(e.op, e.position, e.original, e.replacement) for e in edits] == [
        ("replace", 1, "significantly reduced", "did not reduce"),
    ]
    assert words_changed(edits) == 3
    deleted = word_diff("Pain was not reduced.", "Pain was reduced.")
    assert [(e.op, e.original, e.replacement) for e in deleted] == [("delete", "not", "")]


def test_identical_sentences_have_no_edits():
    assert word_diff("Same sentence.", "Same sentence.") == ()
