"""docs/evaluate.md's tables are the registries' current rendering."""

from __future__ import annotations

import pytest

from scicon.evaluate.docs import DOC, baselines_table, loaders_table, render


def test_the_page_is_current():
    text = DOC.read_text(encoding="utf-8")
    assert render(text) == text, "docs/evaluate.md is stale: run `python -m scicon.evaluate.docs`"
    assert loaders_table() in text and baselines_table() in text


def test_every_loader_and_baseline_has_a_row():
    loaders, baselines = loaders_table(), baselines_table()
    for kind in ("csv", "hard", "healthver", "jsonl", "mancon", "mednli", "nli4ct", "scicon"):
        assert f"| `{kind}` |" in loaders
    assert "`<split>:<statement id>` | primary trial | `split`:" in loaders
    for name in ("embedding_cosine", "hypothesis_only", "negation_cue", "overlap"):
        assert f"| `{name}` |" in baselines
    assert "reported both ways" in baselines


def test_a_page_without_its_blocks_is_refused():
    with pytest.raises(ValueError, match="no generated block 'loaders'"):
        render("# evaluate\n")
