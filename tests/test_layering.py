"""The package map (docs/development.md): which package of scicon/, stages/ and perf/ may import
which.

Four layers, top to bottom: the stage scripts and the perf scripts; the pipeline (what a stage
runs); the four parts of EvoNLI that the evolve pipeline assembles; and the foundations everything
stands on. A package may import its own layer and those below it, never one above, and no two
packages may import each other, directly or round a longer loop; nor may two modules, within a
package too. Every import counts, those inside functions included: a deferred import is still
a dependency.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from scicon.codedeps.closure import ROOT, import_statements, module_file, module_name

LAYERS = ("stages", "pipeline", "parts", "foundations")  # top to bottom
SCRIPTS = ("stages", "perf")  # folders of scripts, each one package of the top layer
PROJECT = ("scicon", *SCRIPTS)  # the top-level packages whose imports are checked

# Every package of scicon (a subpackage or a top-level module) and its layer: a new one
# fails the test until it is placed here.
LAYER = {
    "stages": "stages",
    "perf": "stages",  # the measurement scripts: on top like the stages, they may import anything
    # the pipeline: what the stage scripts run, and the commands around them
    "scicon.audit": "pipeline",
    "scicon.corpus": "pipeline",
    "scicon.dataset": "pipeline",
    "scicon.docs": "pipeline",
    "scicon.entailment": "pipeline",
    "scicon.evaluate": "pipeline",
    "scicon.evolve": "pipeline",
    "scicon.find": "pipeline",
    "scicon.headline": "pipeline",
    "scicon.judgements": "pipeline",
    "scicon.labelled": "pipeline",
    "scicon.naturalness": "pipeline",
    "scicon.pairing": "pipeline",
    "scicon.plots": "pipeline",
    "scicon.profiles": "pipeline",
    "scicon.release": "pipeline",
    "scicon.report": "pipeline",
    "scicon.stage": "pipeline",
    "scicon.sweep": "pipeline",
    "scicon.teacher": "pipeline",
    "scicon.train": "pipeline",
    "scicon.verifier": "pipeline",
    # the parts of EvoNLI, assembled by scicon.evolve
    "scicon.constraints": "parts",
    "scicon.goal": "parts",
    "scicon.search": "parts",
    "scicon.transformations": "parts",
    # the foundations: what a part may be built from
    "scicon": "foundations",  # the package's __init__ (its version)
    "scicon.annotation": "foundations",
    "scicon.assembly_context": "foundations",
    "scicon.backbones": "foundations",
    "scicon.calibration": "foundations",
    "scicon.candidates": "foundations",
    "scicon.classifier": "foundations",
    "scicon.classifier_folder": "foundations",
    "scicon.codedeps": "foundations",
    "scicon.errors": "foundations",
    "scicon.fitted": "foundations",
    "scicon.grounding": "foundations",
    "scicon.io": "foundations",
    "scicon.lexical": "foundations",
    "scicon.models": "foundations",
    "scicon.negation": "foundations",
    "scicon.params": "foundations",
    "scicon.paths": "foundations",
    "scicon.prompts": "foundations",
    "scicon.readers": "foundations",
    "scicon.records": "foundations",
    "scicon.registry": "foundations",
    "scicon.rules": "foundations",
    "scicon.sampling": "foundations",
    "scicon.seeds": "foundations",
    "scicon.textdiff": "foundations",
    "scicon.threads": "foundations",
    "scicon.tsv": "foundations",
}


def package_of(module: str) -> str:
    """``scicon.goal.llm`` -> ``scicon.goal``; ``stages.evolve`` -> ``stages``; ``perf.find_dev`` ->
    ``perf``."""
    parts = module.split(".")
    return parts[0] if parts[0] in SCRIPTS else ".".join(parts[:2])


def project_files(root: Path) -> list[Path]:
    """Every module of scicon/, stages/ and perf/."""
    return sorted(path for package in PROJECT for path in (root / package).rglob("*.py"))


@dataclass(frozen=True)
class Import:
    importer: str  # module
    imported: str  # module
    path: Path  # of the importer, relative to the project
    line: int

    def __str__(self) -> str:
        return f"{self.path.as_posix()}:{self.line}: {self.importer} imports {self.imported}"


def project_imports(root: Path = ROOT) -> Iterator[Import]:
    """Every import of a module of scicon/, stages/ or perf/ by one of them, wherever it is written.
    ``from a import b`` imports the module ``a.b`` where there is one, else a name of ``a``."""
    for path in project_files(root):
        importer = module_name(path, root)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for module, names, line in import_statements(tree, importer, path.name == "__init__.py"):
            submodules = [f"{module}.{name}" for name in names]
            targets = {m for m in submodules if module_file(m, root) is not None}
            if len(targets) < len(submodules) or not names:
                targets.add(module)
            for imported in sorted(targets):
                if imported.split(".")[0] in PROJECT and module_file(imported, root) is not None:
                    yield Import(importer, imported, path.relative_to(root), line)


def cross_package_imports() -> list[Import]:
    return [i for i in project_imports() if package_of(i.importer) != package_of(i.imported)]


def test_every_package_has_a_layer():
    modules = {module_name(path, ROOT) for path in (ROOT / "scicon").rglob("*.py")}
    packages = {package_of(module) for module in modules} | set(SCRIPTS)
    unplaced = sorted(packages - set(LAYER))
    gone = sorted(set(LAYER) - packages)
    assert not unplaced, f"place these packages in a layer of LAYER in {__file__}: {', '.join(unplaced)}"
    assert not gone, f"LAYER names packages that no longer exist: {', '.join(gone)}"


def test_no_package_imports_a_layer_above_its_own():
    rank = {layer: position for position, layer in enumerate(LAYERS)}
    upward = [
        f"{found} ({LAYER[package_of(found.importer)]} may not import {LAYER[package_of(found.imported)]})"
        for found in cross_package_imports()
        if rank[LAYER[package_of(found.imported)]] < rank[LAYER[package_of(found.importer)]]
    ]
    assert not upward, "imports against the package map (docs/development.md):\n" + "\n".join(upward)


def test_no_two_packages_import_each_other_round_a_loop():
    edges: dict[str, dict[str, Import]] = {}
    for found in cross_package_imports():
        edges.setdefault(package_of(found.importer), {}).setdefault(package_of(found.imported), found)
    loops: dict[frozenset[str], list[Import]] = {}
    for start in sorted(edges):
        loop = _loop_from(start, edges)
        if loop:
            loops.setdefault(frozenset(package_of(step.importer) for step in loop), loop)
    assert not loops, "packages that import each other, one import per step:\n" + "\n\n".join(
        "\n".join(str(step) for step in loop) for loop in loops.values()
    )


def _loop_from(start: str, edges: dict[str, dict[str, Import]]) -> list[Import]:
    """The imports of a shortest loop from package ``start`` back to itself; [] when there is none."""
    paths: dict[str, list[Import]] = {start: []}
    frontier = [start]
    while frontier:
        following = []
        for package in frontier:
            for target, found in sorted(edges.get(package, {}).items()):
                if target == start:
                    return [*paths[package], found]
                if target not in paths:
                    paths[target] = [*paths[package], found]
                    following.append(target)
        frontier = following
    return []


def test_an_import_inside_a_function_is_found_with_its_line(tmp_path):
    (tmp_path / "scicon" / "goal").mkdir(parents=True)
    (tmp_path / "scicon" / "evolve").mkdir()
    for init in ("scicon", "scicon/goal", "scicon/evolve"):
        (tmp_path / init / "__init__.py").write_text("")
    (tmp_path / "scicon" / "evolve" / "assembly.py").write_text("")
    (tmp_path / "scicon" / "goal" / "llm.py").write_text(
        "def build():\n    from scicon.evolve.assembly import build_part\n"
    )
    found = [i for i in project_imports(tmp_path) if i.importer == "scicon.goal.llm"]
    assert [(i.imported, i.line) for i in found] == [("scicon.evolve.assembly", 2)]
    assert str(found[0]).startswith("scicon/goal/llm.py:2: scicon.goal.llm imports scicon.evolve.assembly")


def module_loops(root: Path = ROOT) -> list[list[Import]]:
    """Loops of modules importing each other, one import per step. A package's ``__init__`` counts
    as a module: a module taking a name from its own package's ``__init__`` (a registry, say) while
    that ``__init__`` imports it back is a loop; taking a submodule (``from a import b``) is not."""
    edges: dict[str, dict[str, Import]] = {}
    for found in project_imports(root):
        edges.setdefault(found.importer, {}).setdefault(found.imported, found)
    loops: dict[frozenset[str], list[Import]] = {}
    for start in sorted(edges):
        loop = _loop_from(start, edges)
        if loop:
            loops.setdefault(frozenset(step.importer for step in loop), loop)
    return list(loops.values())


def test_no_two_modules_import_each_other_round_a_loop():
    """Within a package too, type-only imports included: a type in the wrong file shows as a loop."""
    loops = module_loops()
    assert not loops, "modules that import each other, one import per step:\n" + "\n\n".join(
        "\n".join(str(step) for step in loop) for loop in loops
    )


def test_a_planted_loop_between_a_package_and_its_module_is_found(tmp_path):
    files = {
        "scicon/__init__.py": "",
        # the loop: the package imports params at the top, params takes the registry back
        "scicon/backbones/__init__.py": "from scicon.backbones.params import Params\nBACKENDS = {}\n",
        "scicon/backbones/params.py": "def known():\n    from scicon.backbones import BACKENDS\n",
        # no loop: context takes the submodule resources, not a name of the package's __init__
        "scicon/rules/__init__.py": "from scicon.rules.context import Context\n",
        "scicon/rules/context.py": "from scicon.rules import resources\n",
        "scicon/rules/resources.py": "",
    }
    _plant(tmp_path, files)
    assert [[str(step) for step in loop] for loop in module_loops(tmp_path)] == [
        [
            "scicon/backbones/__init__.py:1: scicon.backbones imports scicon.backbones.params",
            "scicon/backbones/params.py:2: scicon.backbones.params imports scicon.backbones",
        ]
    ]


DEFERRED_REASONS = ("# start-up:", "# cycle:")


def unexplained_deferred_imports(root: Path = ROOT) -> list[str]:
    """Imports of a project module inside a function without their reason on the line: one
    belongs at the top of its module unless it saves a measured start-up cost or breaks a cycle."""
    found = []
    for path in project_files(root):
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines), filename=str(path))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom):
                    project = node.level > 0 or (node.module or "").split(".")[0] in PROJECT
                elif isinstance(node, ast.Import):
                    project = any(alias.name.split(".")[0] in PROJECT for alias in node.names)
                else:
                    continue
                line = lines[node.lineno - 1]
                if project and not any(reason in line for reason in DEFERRED_REASONS):
                    found.append(f"{path.relative_to(root).as_posix()}:{node.lineno}: {line.strip()}")
    return sorted(set(found))


def test_an_import_inside_a_function_says_why_it_is_there():
    found = unexplained_deferred_imports()
    assert not found, (
        "move these imports to the top of their module, or say on the line why not "
        f"({' or '.join(DEFERRED_REASONS)} and what it saves):\n" + "\n".join(found)
    )


def test_a_planted_unexplained_deferred_import_is_found(tmp_path):
    for folder in PROJECT:
        (tmp_path / folder).mkdir()
    (tmp_path / "scicon" / "judge.py").write_text(
        "def figures():\n"
        "    import torch\n"  # third-party: not this rule's business
        "    from scicon.errors import ParamsError\n"
        "    from scicon.dataset.taxonomy import NEGATION  # start-up: the package pulls the assembly\n"
    )
    (tmp_path / "perf" / "timing.py").write_text("def main():\n    from scicon.io import write_json\n")
    assert unexplained_deferred_imports(tmp_path) == [
        "perf/timing.py:2: from scicon.io import write_json",
        "scicon/judge.py:3: from scicon.errors import ParamsError",
    ]


# Modules of a package every module may import: its registry and what its components share.
SHARED_MODULES = ("__init__", "base")


def sibling_imports(package: str, root: Path = ROOT) -> list[str]:
    """Imports of one component module of ``package`` by another: what two components share
    belongs in the package's shared modules, so a new component is its module alone."""
    shared = {package, *(f"{package}.{name}" for name in SHARED_MODULES)}
    return [
        str(found)
        for found in project_imports(root)
        if found.importer.startswith(f"{package}.")
        and found.importer not in shared
        and found.imported.startswith(f"{package}.")
        and found.imported not in shared
    ]


def test_a_search_imports_no_other_search():
    found = sibling_imports("scicon.search")
    assert not found, "searches that import another (share it through scicon/search/base.py):\n" + "\n".join(
        found
    )


def test_a_planted_sibling_import_is_found(tmp_path):
    files = {
        "scicon/__init__.py": "",
        "scicon/search/__init__.py": "from scicon.search.base import Factory\n",
        "scicon/search/base.py": "",
        "scicon/search/evolutionary.py": "from scicon.search.base import Parts\n",
        "scicon/search/direct.py": "from scicon.search.evolutionary import rejected_edits\n",
    }
    _plant(tmp_path, files)
    assert sibling_imports("scicon.search", tmp_path) == [
        "scicon/search/direct.py:1: scicon.search.direct imports scicon.search.evolutionary"
    ]


def _plant(root, files: dict[str, str]) -> None:
    """A source tree of the given files under ``root``."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
