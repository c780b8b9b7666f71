"""docs/ and the README show what the registries hold: every generated table is current."""

from __future__ import annotations

import pytest

from scicon.docs import (
    baselines_table,
    comparability_checks_table,
    loaders_table,
    registry_table,
    render_page,
    stale_pages,
    unmarked_copies,
)
from scicon.find.checks import COMPARABILITY_CHECKS


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


def test_every_comparability_check_has_a_row_with_its_module():
    rows = comparability_checks_table().splitlines()[2:]
    assert [row.split(" | ")[0] for row in rows] == [f"| `{name}`" for name in COMPARABILITY_CHECKS.names()]
    assert "| `population` | A different population: children against adults" in rows[2]
    assert rows[3].endswith("| `scicon/find/checks/shared_terms.py` |")


def test_a_generated_block_inside_a_list_item_keeps_its_indentation():
    block = "   <!-- generated: comparability-checks -->\n   old\n   <!-- end generated -->\n"
    page = f"4. Checked:\n\n{block}\n   More.\n"
    rendered = render_page(page)
    table = "".join(f"   {line}\n" for line in comparability_checks_table().splitlines())
    assert rendered == page.replace("   old\n", table)
    assert render_page(rendered) == rendered


def test_an_unknown_generated_block_is_refused():
    with pytest.raises(KeyError, match="unknown generated block"):
        render_page("<!-- generated: nothing -->\n<!-- end generated -->")


def test_a_quoted_figure_is_rendered_from_its_file_and_a_stale_one_is_caught(tmp_path):
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics/evolve.json").write_text('{"accepted": 18, "asr": 0.45, "nested": {"n": 1234}}')
    page = (
        "accepts <!-- figure: metrics/evolve.json accepted -->18<!-- end figure --> pairs "
        "(<!-- figure: metrics/evolve.json asr .1% -->45.0%<!-- end figure -->, "
        "<!-- figure: metrics/evolve.json nested.n , -->1,234<!-- end figure --> tried)"
    )
    assert render_page(page, root=tmp_path) == page
    planted = page.replace("-->18<", "-->17<")
    assert render_page(planted, root=tmp_path) == page  # `check` sees a difference: stale
    with pytest.raises(KeyError, match="metrics/evolve.json: no key 'acepted'"):
        render_page("<!-- figure: metrics/evolve.json acepted -->1<!-- end figure -->", root=tmp_path)
    with pytest.raises(KeyError, match="metrics/none.json: no such file"):
        render_page("<!-- figure: metrics/none.json x -->1<!-- end figure -->", root=tmp_path)


def _project_with_registry(tmp_path, page: str):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/measurements.yaml").write_text(
        "judge:\n  commit: 'abc1234'\n  gold: [0.790, 0.696, 0.878]\n  accepted: 188\n  precision: 0.5\n"
    )
    (tmp_path / "docs/page.md").write_text(page)
    (tmp_path / "README.md").write_text("nothing quoted here\n")
    return tmp_path


MARKED = (
    "The judge: <!-- figure: docs/measurements.yaml judge.gold .3f -->0.790 [0.696, 0.878]<!-- end figure -->"
    ","
    "\nalone <!-- figure: docs/measurements.yaml judge.gold.point .3f -->0.790<!-- end figure --> at commit"
    " <!-- figure: docs/measurements.yaml judge.commit -->abc1234<!-- end figure -->, precision 0.50.\n"
)


def test_a_registered_measurement_renders_with_its_interval_and_its_point_alone(tmp_path):
    root = _project_with_registry(tmp_path, MARKED)
    assert render_page(MARKED, root=root) == MARKED
    assert unmarked_copies(root=root) == []


def test_a_registered_figure_typed_without_a_marker_fails_the_check(tmp_path):
    # the same measurement quoted again by hand, once as it is and once as it drifted
    root = _project_with_registry(
        tmp_path, MARKED + "\nLater the judge reaches **0.790**.\nIts interval: 0.791 [0.696, 0.878].\n"
    )
    assert unmarked_copies(root=root) == [
        "docs/page.md:4: 0.790 equals docs/measurements.yaml judge.gold",
        "docs/page.md:5: [0.696, 0.878] equals docs/measurements.yaml judge.gold's interval",
    ]


def test_another_measurement_of_the_same_value_is_written_as_unregistered(tmp_path):
    root = _project_with_registry(
        tmp_path, MARKED + "\nA sweep: <!-- unregistered -->0.790 and 10.7901, 0.79, 188 and 0.50.\n"
    )
    assert unmarked_copies(root=root) == []


def test_a_stale_registered_figure_fails_the_check(tmp_path):
    root = _project_with_registry(tmp_path, MARKED)
    drifted = MARKED.replace("-->0.790 [0.696, 0.878]<", "-->0.797 [0.696, 0.878]<")
    assert render_page(drifted, root=root) == MARKED


def test_a_commands_printed_output_is_not_a_copy(tmp_path):
    # a console block quotes what a command printed: its numbers are output, not hand copies
    output = "```console\n$ dvc metrics diff\nmetrics/evolve.json  asr  0.790  0.791\n```\n"
    root = _project_with_registry(tmp_path, MARKED + "\n" + output + "\nThen 0.790 again.\n")
    assert unmarked_copies(root=root) == ["docs/page.md:9: 0.790 equals docs/measurements.yaml judge.gold"]
