"""The paper profile as a user runs it: `python -m scicon.profiles run paper` in a copy of the
project, every backbone call answered by llama.cpp's own OpenAI-compatible server (the embedded
SmolLM2) on 127.0.0.1, on a few demo abstracts."""

from __future__ import annotations

import json
import sys

import pytest

from tests.dvc_project import FAST_NEGATIVES, OWN_TEACHER_PARAMS, run
from tests.llama_server import SERVED_NAME

pytestmark = pytest.mark.slow


def leaf_settings(prefix: str, values: dict) -> list[str]:
    """``prefix.key=value`` for every leaf of ``values`` (the keys beside them keep their values;
    an empty prefix: ``values`` holds whole sections)."""
    settings = []
    for key, value in values.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            settings += leaf_settings(name, value)
        else:
            settings.append(f"{name}={value}")
    return settings


# The demo instead of PubMed 200K RCT, three abstracts, two pairs searched by a small population,
# the fixtures' few-step teacher as the goal's folder (evolve depends on it even when the LLM judges,
# and the teacher on the rule negatives, checked for grounding only).
ON_THE_DEMO = [
    "ingest.source=data/demo/demo_rct.txt", "ingest.split=null", "ingest.max_abstracts=3",
    "evolve.max_pairs=2", *leaf_settings("", OWN_TEACHER_PARAMS),
    f"negatives.filters=[{','.join(FAST_NEGATIVES['filters'])}]",
    *leaf_settings(
        "evolve.settings.search.evolutionary",
        {"population_size": 2, "candidates_per_mutation": 2, "max_iterations": 1},
    ),
]  # fmt: skip


def run_paper(project, env, base_url: str, api: str, *targets_and_settings: str, check: bool = True):
    settings = [
        "backbone.backend=openai", f"backbone.openai.base_url={base_url}", f"backbone.model={SERVED_NAME}",
        f"backbone.openai.api={api}", *ON_THE_DEMO,
    ]  # fmt: skip
    targets = [item for item in targets_and_settings if "=" not in item]
    settings += [item for item in targets_and_settings if "=" in item]
    arguments = [argument for setting in settings for argument in ("-S", setting)]
    # an experiment per API: a second run in the same project is another experiment
    command = [
        sys.executable,
        "-m",
        "scicon.profiles",
        "run",
        "paper",
        *targets,
        "-n",
        f"paper-{api}",
        *arguments,
    ]
    return run(command, project, env, check=check)


def test_the_paper_profile_searches_both_pair_kinds_through_a_real_server_over_either_api(
    llama_server, project
):
    """The chat API first; then the completions API in the same project, where the pairs (and
    so the rule negatives and the teacher) come out the same and only the stages that call the
    server run again."""
    base_url, _ = llama_server
    copy, env = project
    for api in ("chat", "completions"):
        # SmolLM2 finds no conclusion's supporting result (prompt E.3.2): TF-IDF stands in for it
        said = run_paper(copy, env, base_url, api, "evolve", "pairs.llm_fallback=tfidf").stdout
        if api == "completions":
            assert "Running stage 'pairs'" in said and "Running stage 'evolve'" in said, said
            for unchanged in ("negatives", "teacher"):
                assert f"Stage '{unchanged}' didn't change, skipping" in said, said

        pairs = json.loads((copy / "reports/pairs.json").read_text())
        assert pairs["result_selector"] == "llm"
        assert (
            pairs["backbone"]["endpoints"]["endpoint_1"]["answered"]
            == pairs["backbone"]["calls_computed"]
            > 0
        )
        evolve = json.loads((copy / "reports/evolve.json").read_text())
        assert evolve["recipe"] == "evonli"
        assert evolve["pairs_per_kind"] == {"result_conclusion": 1, "conclusion_conclusion": 1}
        endpoint = evolve["backbone"]["endpoints"]["endpoint_1"]
        assert endpoint["answered"] > 0 and endpoint["failed"] == 0
        assert evolve["backbone"]["generate_computed"] > 0, api  # the server rewrote


def test_the_paper_profile_with_a_selector_that_finds_nothing_stops_naming_the_setting(
    llama_server, project, tmp_path
):
    base_url, _ = llama_server
    copy, env = project
    # a cache of its own: the answers it gets are the ones the search above counts as the server's
    env = {**env, "SCICON_CACHE_DIR": str(tmp_path / "own-cache")}
    # one abstract: the selector is asked about each of its results
    result = run_paper(copy, env, base_url, "chat", "pairs", "ingest.max_abstracts=1", check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "error: pairs: no result_conclusion pair: the llm result selector matched no RESULTS" in output
    assert "pairs.llm_fallback is none: set it to tfidf or overlap" in output
    assert "Traceback" not in output
