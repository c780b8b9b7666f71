"""Code dependencies from imports: dvc.yaml cannot drift from what the stages import."""

from __future__ import annotations

import hashlib
from pathlib import Path

import yaml

from scicon.codedeps.closure import (
    ROOT,
    code_digest,
    code_listing,
    import_closure,
    stage_scripts,
    write_digests,
)
from scicon.codedeps.dvcfile import CODE_STAGE, check, model_folder_problems
from scicon.codedeps.params_read import rerun_keys
from scicon.evolve.params import EvolveParams


def test_every_stage_depends_on_its_code_digest_file_and_declares_the_params_it_reads():
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
    # the digest file lists each of them with its SHA-256, sorted by path
    listing = code_listing("stages/run.py", tmp_path).splitlines()
    assert [line.split()[0] for line in listing] == sorted(closure)
    assert "scicon/tables/one.tsv " + hashlib.sha256(b"a\tb\n").hexdigest() in listing


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
    assert "evolve.workers" not in keys and "evolve.settings" in keys


def test_a_stage_that_reads_one_top_level_key_declares_that_key_alone():
    from scicon.codedeps.params_read import expected_params

    evaluate = expected_params("stages/evaluate.py")
    assert {"target", "gold"} <= set(evaluate)  # precision at target, on gold
    assert not {"sim", "claim"} & set(evaluate)
    teacher = expected_params("stages/teacher.py")
    assert {"labelled_root", "gold"} <= set(teacher)
    # a threshold experiment does not retrain the teacher
    assert not {"sim", "claim", "target"} & set(teacher)


def test_a_block_without_operational_keys_is_declared_whole():
    from scicon.teacher.params import TeacherParams

    assert rerun_keys(TeacherParams, "teacher", whole_blocks=True) == ["teacher"]
    evolve = rerun_keys(EvolveParams, "evolve", whole_blocks=True)  # evolve.workers is operational
    assert "evolve" not in evolve and "evolve.settings" in evolve and "evolve.workers" not in evolve


def test_params_lists_become_one_paragraph_per_section():
    from scicon.codedeps.dvcfile import params_as_paragraphs

    items = "".join(f"      - {key}\n" for key in ("evolve.seed", "evolve.goal", "sim", "claim"))
    block = f"  evolve:\n    params:\n{items}    outs:\n"
    text = params_as_paragraphs(block)
    assert text == "  evolve:\n    params: [\n      evolve.seed, evolve.goal,\n      sim, claim]\n    outs:\n"
    assert yaml.safe_load(text)["evolve"]["params"] == ["evolve.seed", "evolve.goal", "sim", "claim"]
    long = "    params:\n" + "".join(f"      - backbone.key_{i}\n" for i in range(20))
    assert max(map(len, params_as_paragraphs(long).splitlines())) <= 100


def _stages(evolve_deps: list[str]) -> dict:
    teacher = {"cmd": "python -m stages.teacher --model models/teacher", "outs": ["models/teacher"]}
    evolve = {
        "cmd": "python -m stages.evolve",
        "deps": ["code/evolve.txt", "data/interim/pairs.jsonl", *evolve_deps],
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
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "teachr.dvc").write_text("outs:\n- path: teachr\n")  # tracked, pulled before repro
    assert model_folder_problems(_stages([key]), params, tmp_path) == []
    (tmp_path / "models" / "teachr.dvc").unlink()
    (tmp_path / "models" / "teachr").mkdir()  # a folder the user put there is fine
    assert model_folder_problems(_stages([key]), params, tmp_path) == []


def test_the_digest_files_change_exactly_for_the_stages_whose_code_changed(tmp_path):
    write(
        tmp_path,
        {
            "stages/__init__.py": "",
            "stages/first.py": "import scicon.shared\nimport scicon.only_first\n",
            "stages/second.py": "import scicon.shared\n",
            "scicon/__init__.py": "",
            "scicon/shared.py": "x = 1\n",
            "scicon/only_first.py": "y = 1\n",
            "scicon/unused.py": "",
        },
    )
    out = tmp_path / "code"
    out.mkdir()
    (out / "gone.txt").write_text("a stage script that no longer exists\n")

    def digests() -> dict[str, str]:
        written = write_digests(out, tmp_path)
        return {path.name: path.read_text() for path in written}

    before = digests()
    assert sorted(before) == ["first.txt", "second.txt"] and not (out / "gone.txt").exists()
    assert digests() == before  # deterministic
    (tmp_path / "scicon/only_first.py").write_text("y = 2\n")
    (tmp_path / "scicon/unused.py").write_text("z = 2\n")
    after = digests()
    assert after["first.txt"] != before["first.txt"] and after["second.txt"] == before["second.txt"]
    (tmp_path / "scicon/shared.py").write_text("x = 2\n")
    assert all(digests()[name] != after[name] for name in after)


def test_check_wants_the_code_stage_and_each_stage_on_its_digest_file_not_on_modules(tmp_path):
    write(
        tmp_path,
        {
            "stages/run.py": "import scicon.a\n",
            "scicon/__init__.py": "",
            "scicon/a.py": "",
            "params.yaml": "{}\n",
        },
    )
    run = {"cmd": "python -m stages.run", "deps": ["code/run.txt", "data/in.txt"], "outs": ["out.txt"]}
    dvc_file = tmp_path / "dvc.yaml"

    def problems(stages: dict) -> list[str]:
        dvc_file.write_text(yaml.safe_dump({"stages": stages}))
        return check(dvc_file, tmp_path)

    assert problems({"code": CODE_STAGE, "run": run}) == []
    assert problems({"run": run}) == [f"the code stage is missing or differs from {CODE_STAGE}"]
    listed = {**run, "deps": ["scicon/a.py", "data/in.txt"]}
    assert problems({"code": CODE_STAGE, "run": listed}) == [
        "run: deps lack code/run.txt (the digest of the code stages/run.py runs)",
        "run: deps list scicon/a.py; the stage's code is code/run.txt alone",
    ]


def test_a_loader_only_evaluation_reads_is_code_of_the_evaluate_stage_alone():
    """A new evaluation-only loader (a module of scicon/evaluate/loaders) must rerun evaluate
    and nothing else: the judges and the build read through scicon.readers."""
    evaluation_loaders = ROOT / "scicon" / "evaluate" / "loaders"
    readers = ROOT / "scicon" / "readers"
    for script in stage_scripts():
        closure = import_closure(ROOT / script)
        has_evaluation_loaders = any(path.is_relative_to(evaluation_loaders) for path in closure)
        assert has_evaluation_loaders == (script == "stages/evaluate.py"), script
        if script in ("stages/teacher.py", "stages/entailment.py", "stages/build.py", "stages/evaluate.py"):
            assert any(path.is_relative_to(readers) for path in closure), script


def test_no_stage_runs_the_dvc_yaml_linter():
    """The digest and the params reading are what a stage may use of codedeps; the dvc.yaml
    checker and rewriter are for the developer's commands only."""
    linter = {ROOT / "scicon" / "codedeps" / "dvcfile.py", ROOT / "scicon" / "codedeps" / "__main__.py"}
    for script in stage_scripts():
        assert not linter & set(import_closure(ROOT / script)), script
