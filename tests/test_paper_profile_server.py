"""The paper profile as a user runs it: `python -m scicon.profiles run paper` in a copy of the
project, every backbone call answered by llama.cpp's own OpenAI-compatible server (the embedded
SmolLM2) on 127.0.0.1, on a few demo abstracts."""

from __future__ import annotations

import json
import sys

import pytest

from tests.dvc_project import FAST_TEACHER, OWN_TEACHER, run
from tests.llama_server import SERVED_NAME

pytestmark = pytest.mark.slow


def leaf_settings(prefix: str, values: dict) -> list[str]:
    """``prefix.key=value`` for every leaf of ``values`` (the keys beside them keep their values)."""
    settings = []
    for key, value in values.items():
        if isinstance(value, dict):
            settings += leaf_settings(f"{prefix}.{key}", value)
        else:
            settings.append(f"{prefix}.{key}={value}")
    return settings


# The demo instead of PubMed 200K RCT, three abstracts, two pairs searched by a small population,
# the fixtures' few-step teacher, named as EvoNLI's goal (the default, the released judge, is not in
# a copied project; evolve depends on the goal's folder even when the LLM judges).
ON_THE_DEMO = [
    "ingest.source=data/demo/demo_rct.txt", "ingest.split=null", "ingest.max_abstracts=3",
    "evolve.max_pairs=2", "evolve.population_size=2", "evolve.candidates_per_mutation=2",
    "evolve.max_iterations=1", *leaf_settings("teacher", FAST_TEACHER),
    f"evolve.settings.goal.classifier.model={OWN_TEACHER}",
]  # fmt: skip


def run_paper(project, env, base_url: str, api: str, *targets_and_settings: str, check: bool = True):
    settings = [
        "backbone.backend=openai", f"backbone.openai.base_url={base_url}", f"backbone.model={SERVED_NAME}",
        f"backbone.openai.api={api}", *ON_THE_DEMO,
    ]  # fmt: skip
    targets = [item for item in targets_and_settings if "=" not in item]
    settings += [item for item in targets_and_settings if "=" in item]
    arguments = [argument for setting in settings for argument in ("-S", setting)]
    command = [sys.executable, "-m", "scicon.profiles", "run", "paper", *targets, *arguments]
    return run(command, project, env, check=check)


@pytest.mark.parametrize("api", ["chat", "completions"])
def test_the_paper_profile_searches_both_pair_kinds_through_a_real_server(llama_server, project, api):
    base_url, _ = llama_server
    copy, env = project
    # SmolLM2 finds no conclusion's supporting result (prompt E.3.2): TF-IDF stands in for it
    run_paper(copy, env, base_url, api, "evolve", "pairs.llm_fallback=tfidf")

    pairs = json.loads((copy / "reports/pairs.json").read_text())
    assert pairs["result_selector"] == "llm"
    assert pairs["backbone"]["endpoints"]["endpoint_1"]["answered"] == pairs["backbone"]["calls_computed"] > 0
    evolve = json.loads((copy / "reports/evolve.json").read_text())
    assert evolve["recipe"] == "evonli"
    assert evolve["pairs_per_kind"] == {"result_conclusion": 1, "conclusion_conclusion": 1}
    endpoint = evolve["backbone"]["endpoints"]["endpoint_1"]
    assert endpoint["answered"] > 0 and endpoint["failed"] == 0
    assert evolve["backbone"]["generate_computed"] > 0  # the server rewrote


def test_the_paper_profile_with_a_selector_that_finds_nothing_stops_naming_the_setting(
    llama_server, project, tmp_path
):
    base_url, _ = llama_server
    copy, env = project
    # a cache of its own: the answers it gets are the ones the search above counts as the server's
    env = {**env, "SCICON_CACHE_DIR": str(tmp_path / "own-cache")}
    result = run_paper(copy, env, base_url, "chat", "pairs", check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "error: pairs: no result_conclusion pair: the llm result selector matched no RESULTS" in output
    assert "pairs.llm_fallback is none: set it to tfidf or overlap" in output
    assert "Traceback" not in output
