"""Profiles: the paper's method as one command, every key checked against params.yaml first."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from scicon.errors import ParamsError
from scicon.evolve.params import EvolveParams, recipe_name
from scicon.evolve.recipes import PAPER
from scicon.params import read_params_file, validate_section
from scicon.profiles import (
    apply_overrides,
    departures,
    departures_table,
    load_profile,
    main,
    parse_assignments,
    read_back,
    set_arguments,
    validate,
)
from tests.dvc_project import GIT_IDENTITY
from tests.params_defaults import PARAMS_FILE

REPO = Path(__file__).resolve().parent.parent


def test_the_paper_profile_sets_every_part_to_the_papers_and_validates():
    overrides = load_profile("paper")
    params = apply_overrides(read_params_file(PARAMS_FILE), overrides)
    validate(params)
    evolve = validate_section(EvolveParams, params["evolve"], "evolve.")
    assert recipe_name(evolve) == PAPER.name
    assert params["pairs"]["result_selector"] == "llm" and params["evolve"]["max_pairs"] is None
    assert params["build"]["sources"] == ["evonli", "original"]
    assert set(params["evolve"]["pair_kinds"]) == {"result_conclusion", "conclusion_conclusion"}
    assert params["evolve"]["fluency"] == "off" and params["evolve"]["edits"] == ["not_empty"]
    assert (params["sim"], params["claim"], params["target"]) == (0.5, 0.9, 0.4)  # Table 6


def test_the_paper_profile_sets_only_departures_each_with_its_reason_and_the_docs_table_is_it():
    params = read_params_file(PARAMS_FILE)
    rows = departures(params)
    assert {row.key for row in rows if row.in_profile} == set(load_profile("paper"))
    assert all(row.default != row.paper and row.why for row in rows if row.in_profile)
    table = departures_table(params)
    assert table in (REPO / "docs" / "evolve.md").read_text(encoding="utf-8")
    both = "`[result_conclusion, conclusion_conclusion]`"
    assert f"| `evolve.pair_kinds` | `[result_conclusion]` | {both} | yes |" in table


def planted_profile(tmp_path, change) -> Path:
    data = yaml.safe_load((REPO / "profiles" / "paper.yaml").read_text(encoding="utf-8"))
    change(data)
    tmp_path.mkdir()
    (tmp_path / "paper.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    return tmp_path


def test_a_profile_that_is_not_its_table_is_refused_or_renders_another_table(tmp_path):
    params = read_params_file(PARAMS_FILE)
    documented = (REPO / "docs" / "evolve.md").read_text(encoding="utf-8")

    def set_population(data):  # a setting changed in the profile alone: the docs table is stale
        data["set"]["evolve.settings.search.evolutionary.population_size"] = 8
        data["why"]["evolve.settings.search.evolutionary.population_size"] = "planted"

    assert departures_table(params, planted_profile(tmp_path / "a", set_population)) not in documented

    def drop_reason(data):
        del data["why"]["claim"]

    with pytest.raises(ParamsError, match=r"no reason: \['claim'\]"):
        departures(params, folder=planted_profile(tmp_path / "b", drop_reason))

    def set_a_default(data):  # Table 6's sim is already the default: not a departure
        data["set"]["sim"] = 0.5
        data["why"]["sim"] = "planted"

    with pytest.raises(ParamsError, match="already 0.5: not a departure"):
        departures(params, folder=planted_profile(tmp_path / "c", set_a_default))


def test_a_profile_is_checked_down_to_the_component_blocks_and_an_old_key_says_where_it_went():
    params = read_params_file(PARAMS_FILE)
    with pytest.raises(ParamsError, match=r"evolve.settings.goal.classifier.contradiction_labl"):
        validate(apply_overrides(params, {"evolve.settings.goal.classifier": {"contradiction_labl": "x"}}))
    with pytest.raises(ParamsError, match="evolve.search: 'direct_prompt' needs evolve.transformation"):
        validate(apply_overrides(params, {"evolve.search": "direct_prompt"}))
    with pytest.raises(
        ParamsError,
        match=r"no key 'evolve.max_iterations': it has moved to 'evolve.settings.search.evolutionary.max_",
    ):
        apply_overrides(params, {"evolve.max_iterations": 2})


def test_assignments_read_values_as_dvc_does():
    assert parse_assignments(["evolve.fluency=off", "sim=0.7", "evolve.pair_kinds=[a, b]", "x=null"]) == {
        "evolve.fluency": "off",
        "sim": 0.7,
        "evolve.pair_kinds": ["a", "b"],
        "x": None,
    }


def test_a_profile_is_read_as_params_are_so_an_unquoted_off_stays_a_string(tmp_path):
    (tmp_path / "mine.yaml").write_text("set:\n  evolve.fluency: off\n", encoding="utf-8")
    assert load_profile("mine", tmp_path) == {"evolve.fluency": "off"}


def test_the_gpu_profile_is_the_paper_profile_plus_its_own_settings_and_a_cycle_is_refused(tmp_path):
    paper, gpu = load_profile("paper"), load_profile("gpu")
    own = yaml.safe_load((REPO / "profiles" / "gpu.yaml").read_text(encoding="utf-8"))["set"]
    assert gpu == {**paper, **own} and set(paper) <= set(gpu)
    assert gpu["backbone.backend"] == "openai" and gpu["finetune.learning_rate"] == 2.0e-5  # Table 7
    validate(apply_overrides(read_params_file(PARAMS_FILE), gpu))
    (tmp_path / "a.yaml").write_text("extends: b\nset: {sim: 0.6}\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("extends: a\nset: {sim: 0.7}\n", encoding="utf-8")
    with pytest.raises(ParamsError, match="'extends' chain comes back to 'a'"):
        load_profile("a", tmp_path)


def test_overrides_change_existing_keys_only():
    params = {"sim": 0.5, "evolve": {"similarity": "embedding", "max_pairs": 6}}
    changed = apply_overrides(
        params, parse_assignments(["evolve.similarity=llm", "sim=0.7", "evolve.max_pairs=null"])
    )
    assert changed == {"sim": 0.7, "evolve": {"similarity": "llm", "max_pairs": None}}
    assert params["sim"] == 0.5  # the input is not changed
    with pytest.raises(ParamsError, match="no key 'evolve.simlarity'"):
        apply_overrides(params, {"evolve.simlarity": "llm"})
    with pytest.raises(ParamsError, match="expected KEY=VALUE"):
        parse_assignments(["evolve.similarity"])


def test_arguments_read_back_as_the_same_values():
    overrides = {
        "build.sources": ["evonli", "original"],
        "evolve.max_pairs": None,
        "sim": 0.5,
        "self_training.rounds": {"r2": {"teacher": "models/scicon-classifier"}},
    }
    arguments = set_arguments(overrides)
    assert arguments[::2] == ["-S"] * 4
    assert arguments[-1].startswith("++self_training.rounds=")  # a mapping is forced in
    assert parse_assignments(arguments[1::2]) == overrides


@pytest.mark.parametrize("profile", sorted(path.stem for path in (REPO / "profiles").glob("*.yaml")))
def test_dvc_reads_every_profile_value_back_unchanged(profile):
    """DVC's -S grammar (Hydra's) keeps quoted text literal: YAML's "\\t" would arrive as backslash-t."""
    overrides = load_profile(profile)
    assignments = set_arguments(overrides)[1::2]
    read = {key: read_back(a) for key, a in zip(overrides, assignments, strict=True)}
    assert read == overrides


def test_awkward_strings_survive_and_a_value_params_cannot_hold_is_refused():
    overrides = {
        "tab": "\t",
        "quotes": "it's \"x\" \\' and \\",
        "backslash": "a\\",
        "numbers": [5e-05, 1200, "1.0", True, None],
    }
    for key, assignment in zip(overrides, set_arguments(overrides)[1::2], strict=True):
        assert read_back(assignment) == overrides[key]
    with pytest.raises(ParamsError, match="a params value is"):
        set_arguments({"when": object()})


@pytest.mark.slow
def test_dvc_accepts_the_arguments_of_every_profile_and_writes_their_values(tmp_path):
    """dvc exp run -S with the profile's arguments, for real: new keys in an empty mapping too."""
    params = {"sim": 0.5, "self_training": {"rounds": {}}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    stage = {"cmd": "echo ok", "params": ["sim", "self_training.rounds"]}
    (tmp_path / "dvc.yaml").write_text(yaml.safe_dump({"stages": {"show": stage}}), encoding="utf-8")
    env = {**os.environ, **GIT_IDENTITY}
    for command in (["git", "init", "-q"], [sys.executable, "-m", "dvc", "init", "-q"]):
        subprocess.run(command, cwd=tmp_path, env=env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=tmp_path, env=env, check=True)
    overrides = {"sim": 0.7, "self_training.rounds": load_profile("self-training")["self_training.rounds"]}
    run = [sys.executable, "-m", "dvc", "exp", "run", *set_arguments(overrides)]
    subprocess.run(run, cwd=tmp_path, env=env, check=True, capture_output=True)
    written = yaml.safe_load((tmp_path / "params.yaml").read_text(encoding="utf-8"))
    assert written == {
        "sim": 0.7,
        "self_training": {"rounds": {"r2": {"teacher": "models/scicon-classifier"}}},
    }


def test_a_bad_value_or_an_unknown_profile_stops_before_anything_runs(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["show", "paper", "-S", "evolve.settings.search.evolutionary.population_size=0"])
    assert stopped.value.code == 1
    assert "evolve.settings.search.evolutionary.population_size: Input should be greater than 0" in (
        capsys.readouterr().err
    )
    with pytest.raises(SystemExit):
        main(["run", "no-such-profile"])
    assert "no profile 'no-such-profile'" in capsys.readouterr().err
