"""Profiles: the paper's method as one command, every key checked against params.yaml first."""

from __future__ import annotations

import pytest

from scicon.errors import ParamsError
from scicon.evolve.params import EvolveParams
from scicon.evolve.recipes import PAPER, recipe_name
from scicon.params import read_params_file, validate_section
from scicon.profiles import apply_overrides, load_profile, main, parse_assignments, set_arguments, validate
from tests.params_defaults import PARAMS_FILE


def test_the_paper_profile_sets_every_part_to_the_papers_and_validates():
    overrides = load_profile("paper")
    params = apply_overrides(read_params_file(PARAMS_FILE), overrides)
    validate(params)
    evolve = validate_section(EvolveParams, params["evolve"], "evolve.")
    assert recipe_name(evolve) == PAPER.name
    assert params["pairs"]["result_selector"] == "llm" and params["evolve"]["max_pairs"] is None
    assert params["build"]["sources"] == ["evonli", "original"]


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
    overrides = {"build.sources": ["evonli", "original"], "evolve.max_pairs": None, "sim": 0.5}
    arguments = set_arguments(overrides)
    assert arguments[::2] == ["-S"] * 3
    assert parse_assignments(arguments[1::2]) == overrides


def test_a_bad_value_or_an_unknown_profile_stops_before_anything_runs(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["show", "paper", "-S", "evolve.population_size=0"])
    assert stopped.value.code == 1
    assert "evolve.population_size" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", "no-such-profile"])
    assert "no profile 'no-such-profile'" in capsys.readouterr().err
