"""Code dependencies from imports: dvc.yaml cannot drift from what the stages import."""

from __future__ import annotations

from pathlib import Path

from scicon.codedeps import (
    check,
    code_digest,
    expected_code_deps,
    import_closure,
    model_folder_problems,
    rerun_keys,
)
from scicon.evolve.params import EvolveParams


def test_dvc_yaml_lists_exactly_what_every_stage_imports_and_the_params_it_reads():
    assert check() == []


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_the_closure_follows_imports_package_inits_registry_packages_and_declared_data(tmp_path):
    write(
        tmp_path,
        {
            "stages/run.py": "from scicon.a import thing\nimport scicon.reg\n",
            "scicon/__init__.py": "",
            "scicon/a.py": "from . import b\ndef thing():\n    from scicon.sub.c import x\n",
            "scicon/b.py": "import os\n",
            "scicon/unused.py": "",
            "scicon/sub/__init__.py": "",
            "scicon/sub/c.py": "from scicon.tab import rows\nx = 1\n",
            "scicon/tab.py": '__data__ = ("tables",)\nrows = []\n',
            "scicon/tables/one.tsv": "a\tb\n",
            "scicon/reg/__init__.py": "from scicon.registry import Registry\n"
            "R = Registry('k', package=__name__)\n",
            "scicon/reg/first.py": "from scicon.reg import R\n",
            "scicon/reg/second.py": "import scicon.b\n",
            "scicon/registry.py": "",
        },
    )
    closure = {str(p.relative_to(tmp_path)) for p in import_closure(tmp_path / "stages/run.py", tmp_path)}
    assert closure == {
        "stages/run.py",
        "scicon/__init__.py",
        "scicon/a.py",
        "scicon/b.py",  # a relative import
        "scicon/sub/__init__.py",  # imported with its package
        "scicon/sub/c.py",  # an import inside a function counts
        "scicon/tab.py",
        "scicon/tables/one.tsv",  # declared data
        "scicon/reg/__init__.py",
        "scicon/reg/first.py",  # a registry imports every module of its package
        "scicon/reg/second.py",
        "scicon/registry.py",
    }
    # a folder every file of which is needed is listed as the folder
    deps = expected_code_deps("stages/run.py", tmp_path)
    assert "scicon/reg" in deps and "scicon/tables" in deps and "scicon/unused.py" not in deps


def test_the_digest_changes_when_any_file_of_the_closure_changes(tmp_path):
    write(
        tmp_path, {"stages/run.py": "import scicon.a\n", "scicon/__init__.py": "", "scicon/a.py": "x = 1\n"}
    )
    files = import_closure(tmp_path / "stages/run.py", tmp_path)
    before = code_digest(files, tmp_path)
    assert code_digest(files, tmp_path) == before
    (tmp_path / "scicon/a.py").write_text("x = 2\n")
    assert code_digest(files, tmp_path) != before


def test_operational_keys_trigger_no_rerun():
    keys = rerun_keys(EvolveParams, "evolve")
    assert "evolve.workers" not in keys and "evolve.population_size" in keys


def test_a_stage_that_reads_one_top_level_key_declares_that_key_alone():
    from scicon.codedeps import expected_params

    evaluate = expected_params("stages/evaluate.py")
    assert {"target", "gold.path"} <= set(evaluate)  # precision at target, on gold
    assert not {"sim", "claim"} & set(evaluate)
    teacher = expected_params("stages/teacher.py")
    assert {"labelled_root", "gold.path"} <= set(teacher)
    # a threshold experiment does not retrain the teacher
    assert not {"sim", "claim", "target"} & set(teacher)


def _stages(evolve_deps: list[str]) -> dict:
    teacher = {"cmd": "python -m stages.teacher --model models/teacher", "outs": ["models/teacher"]}
    evolve = {
        "cmd": "python -m stages.evolve",
        "deps": ["stages/evolve.py", "data/interim/pairs.jsonl", *evolve_deps],
        "params": ["evolve.settings", "sim"],
    }
    return {"teacher": teacher, "evolve": evolve}


def test_a_model_folder_is_a_dependency_from_the_params_value_that_names_it(tmp_path):
    params = {"sim": 0.5, "evolve": {"settings": {"goal": {"classifier": {"model": "models/teacher"}}}}}
    key = "${evolve.settings.goal.classifier.model}"
    lacks = f"evolve: params {key[2:-1]} names models/teacher, but the stage's deps lack it"
    assert model_folder_problems(_stages([key]), params, tmp_path) == []
    assert model_folder_problems(_stages(["models/teacher"]), params, tmp_path) == [
        f"evolve: deps name the model folder models/teacher literally; write it as {key}",
        lacks,
    ]
    assert model_folder_problems(_stages([]), params, tmp_path) == [lacks]
    params["evolve"]["settings"]["goal"]["classifier"]["model"] = "models/teachr"  # a typo: nothing writes it
    assert model_folder_problems(_stages([key]), params, tmp_path) == [
        "evolve: params evolve.settings.goal.classifier.model names models/teachr, which no stage writes"
    ]
    (tmp_path / "models" / "teachr").mkdir(parents=True)  # a folder the user put there is fine
    assert model_folder_problems(_stages([key]), params, tmp_path) == []
