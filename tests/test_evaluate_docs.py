"""docs/ and the README show what the registries hold: every generated table is current."""

from __future__ import annotations

import pytest

from scicon.docs import baselines_table, loaders_table, registry_table, render_page, stale_pages


def test_every_generated_table_in_the_docs_is_current():
    stale = [str(page) for page in stale_pages()]
    assert stale == [], f"stale generated tables in {stale}: run `python -m scicon.docs write`"


def test_every_loader_baseline_and_evolve_component_has_a_row():
    loaders, baselines = loaders_table(), baselines_table()
    for kind in ("csv", "hard", "healthver", "jsonl", "mancon", "mednli", "nli4ct", "scicon"):
        assert f"| `{kind}` |" in loaders
    assert "`<split>:<statement id>` | primary trial | `split`:" in loaders
    for name in ("embedding_cosine", "hypothesis_only", "negation_cue", "overlap"):
        assert f"| `{name}` |" in baselines
    assert "reported both ways" in baselines
    transformations = registry_table("transformation")
    for name in ("llm", "mixed", "mlm", "random", "rules"):
        assert f"| `{name}` |" in transformations
    assert "`temperature` = `0.9`" in transformations  # the value params.yaml gives it


def test_an_unknown_generated_block_is_refused():
    with pytest.raises(KeyError, match="unknown generated block"):
        render_page("<!-- generated: nothing -->\n<!-- end generated -->")
