"""What each stage's code is: the files its script imports, found by reading the source.

A stage's result depends on every module of ``scicon`` its script imports, directly or
not, and on the data files those modules read. This module computes that set from the
source (AST, nothing is imported), for two uses that must agree:

- ``dvc.yaml``: the first stage, ``code``, runs ``python -m scicon.codedeps digests``,
  which writes ``code/<script>.txt`` for each stage script: the path and SHA-256 of every
  file the script imports or reads, one a line, sorted. Each stage depends on its digest
  file instead of a list of modules, so DVC reruns exactly the stages whose code changed.
  ``check`` verifies that every stage declares its digest file and the params keys it
  reads (``write`` updates dvc.yaml), so neither can drift from the code;
- resumable stages (the evolve journal) fold :func:`code_digest` into the digest that
  decides whether an earlier run's records may be reused, so any code change on the
  search path recomputes instead of restoring old results.

Three things beyond plain imports count: importing ``a.b.c`` runs the ``__init__`` of
``a`` and ``a.b``; a package that creates a :class:`scicon.registry.Registry` with
``package=__name__`` imports every module in it; a module that sets
``__data__ = ("folder", ...)`` reads those paths (relative to its own folder).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib
import io
import itertools
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from scicon.params import lookup

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("scicon",)
DVC_FILE = "dvc.yaml"
SCRIPTS = "stages"  # one script per stage
CODE = "code"  # the digest files, one per stage script: the code stage's output
CODE_STAGE = {
    "cmd": f"python -m scicon.codedeps digests --out {CODE}",
    "deps": [PACKAGES[0], SCRIPTS],
    "outs": [{CODE: {"cache": False}}],
}


def module_file(module: str, root: Path) -> Path | None:
    base = root.joinpath(*module.split("."))
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def _package_inits(module: str, root: Path) -> list[Path]:
    parts = module.split(".")
    inits = []
    for end in range(1, len(parts)):
        init = root.joinpath(*parts[:end], "__init__.py")
        if init.is_file():
            inits.append(init)
    return inits


def module_name(path: Path, root: Path) -> str:
    relative = path.relative_to(root).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


def _is_registry_package(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Registry"
            and any(
                k.arg == "package" and isinstance(k.value, ast.Name) and k.value.id == "__name__"
                for k in node.keywords
            )
        ):
            return True
    return False


def _declared_data(tree: ast.Module, folder: Path) -> list[Path]:
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__data__" for t in node.targets)
            and isinstance(node.value, ast.Tuple | ast.List)
        ):
            return [
                folder / element.value for element in node.value.elts if isinstance(element, ast.Constant)
            ]
    return []


def imported_modules(tree: ast.Module, current: str, is_package: bool) -> Iterable[tuple[str, int]]:
    """Every name an import statement of ``tree`` (module ``current``) may load, with its line:
    imports inside functions too, and ``from a import b`` as both ``a`` and ``a.b``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = current.split(".") if is_package else current.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            yield module, node.lineno
            for alias in node.names:
                yield f"{module}.{alias.name}", node.lineno  # a submodule, when one of that name exists


def import_closure(entry: Path, root: Path = ROOT) -> list[Path]:
    """Every file of :data:`PACKAGES` the script ``entry`` runs or reads, sorted; ``entry`` first."""
    entry = entry.resolve()
    seen: set[Path] = set()
    data: set[Path] = set()
    queue = [entry]
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        current = module_name(path, root) if path.is_relative_to(root) else path.stem
        data.update(_declared_data(tree, path.parent))
        found: list[Path] = []
        for module, _ in imported_modules(tree, current, is_package):
            if module.split(".")[0] not in PACKAGES:
                continue
            target = module_file(module, root)
            if target is not None:
                found += [target, *_package_inits(module, root)]
        if is_package and _is_registry_package(tree):
            found += sorted(p for p in path.parent.glob("*.py"))
            found += sorted(p for p in path.parent.glob("*/__init__.py"))
        queue += [p for p in found if p not in seen]
    files = {p.resolve() for p in seen} | {
        f.resolve() for d in data for f in ([d] if d.is_file() else d.rglob("*")) if f.is_file()
    }
    files.discard(entry)
    return [entry, *sorted(files)]


def code_digest(files: Iterable[Path], root: Path = ROOT) -> str:
    """SHA-256 over the files' repository paths and bytes: changes when any of them does."""
    digest = hashlib.sha256()
    for path in sorted(Path(f).resolve() for f in files):
        digest.update(f"{path.relative_to(root)}\0".encode())
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def stage_code_digest(script: str | Path, root: Path = ROOT) -> str:
    """The digest of everything the stage script ``script`` imports or reads."""
    return code_digest(import_closure(root / script, root), root)


def code_listing(script: str | Path, root: Path = ROOT) -> str:
    """``path sha256`` of every file the stage script ``script`` imports or reads, one a line,
    sorted by path: the content of its digest file, which changes exactly when its code does."""
    files = sorted((path.relative_to(root).as_posix(), path) for path in import_closure(root / script, root))
    return "".join(f"{name} {hashlib.sha256(path.read_bytes()).hexdigest()}\n" for name, path in files)


def stage_scripts(root: Path = ROOT) -> list[str]:
    """Every stage script, ``stages/<name>.py``."""
    return sorted(
        p.relative_to(root).as_posix() for p in (root / SCRIPTS).glob("*.py") if p.stem != "__init__"
    )


def digest_file(script: str) -> str:
    """The digest file of a stage script: ``code/<name>.txt``, shared by every stage running it."""
    return f"{CODE}/{Path(script).stem}.txt"


def write_digests(out: Path, root: Path = ROOT) -> list[Path]:
    """Write every stage script's digest file into ``out``, removing any other ``.txt`` there."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for script in stage_scripts(root):
        target = out / Path(digest_file(script)).name
        target.write_text(code_listing(script, root), encoding="utf-8")
        written.append(target)
    for stale in set(out.glob("*.txt")) - set(written):
        stale.unlink()
    return written


# ---- params --------------------------------------------------------------------------------------


def rerun_keys(model: type[BaseModel], prefix: str, whole_blocks: bool = False) -> list[str]:
    """Dotted params keys of a section model that change results (operational ones left out);
    a nested block (``backbone.openai``) is listed key by key, or with ``whole_blocks``, as a
    stage declares them, by its own key where none of its keys is operational (``ingest``,
    ``backbone.transformers``): as exact, since a section accepts no key its model lacks."""
    from scicon.params import is_operational, nested_section

    if whole_blocks and prefix and model.model_fields and _all_result_keys(model):
        return [prefix]
    keys = []
    for name, info in model.model_fields.items():
        key = f"{prefix}.{name}" if prefix else name
        block = nested_section(info)
        if block is not None:
            keys += rerun_keys(block, key, whole_blocks)
        elif not is_operational(info):
            keys.append(key)
    return keys


def _all_result_keys(model: type[BaseModel]) -> bool:
    """Whether every key of a section model, nested blocks included, can change results."""
    from scicon.params import is_operational, nested_section

    return all(
        not is_operational(info) and (nested_section(info) is None or _all_result_keys(nested_section(info)))
        for info in model.model_fields.values()
    )


@dataclass(frozen=True)
class SectionRead:
    section: str | None  # None: top-level keys
    model: str  # "module:Class", or "scicon.params:TopLevel.<key>" for one top-level key

    @property
    def single_key(self) -> str | None:
        """The top-level key read alone with ``load_key``, if that is what this read is."""
        _, _, key = self.model.partition(":TopLevel.")
        return key or None

    def model_class(self) -> type[BaseModel]:
        """The section model this read validates with, imported."""
        module, name = self.model.split(":")
        return getattr(importlib.import_module(module), name)


def sections_read(script: Path) -> list[SectionRead]:
    """The params sections a stage script loads: ``load_section(_, "name", Model)`` and
    ``load_thresholds(...)`` calls, with the model resolved through the script's imports."""
    tree = ast.parse(script.read_text(encoding="utf-8"))
    imported = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                imported[alias.asname or alias.name] = f"{node.module}:{alias.name}"
    reads = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None)
        if name == "load_section" and len(node.args) >= 3:
            section, model = node.args[1], node.args[2]
            if isinstance(section, ast.Constant) and isinstance(model, ast.Name):
                reads.append(SectionRead(section.value, imported[model.id]))
        elif name == "load_thresholds":
            reads.append(SectionRead(None, "scicon.params:Thresholds"))
        elif name == "load_key" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
            reads.append(SectionRead(None, f"scicon.params:TopLevel.{node.args[1].value}"))
    return list(dict.fromkeys(reads))


def expected_params(script: str, root: Path = ROOT) -> list[str]:
    keys: list[str] = []
    for read in sections_read(root / script):
        if read.single_key:
            keys.append(read.single_key)
            continue
        keys += rerun_keys(read.model_class(), read.section or "", whole_blocks=True)
    return list(dict.fromkeys(keys))


# ---- dvc.yaml ------------------------------------------------------------------------------------


def stage_body(stage: dict) -> dict:
    """The stage itself, or for a ``foreach`` stage the ``do`` template every instance shares."""
    return stage["do"] if "do" in stage else stage


def stage_script(stage: dict) -> str | None:
    """``stages/<name>.py`` of a stage whose command runs ``python -m stages.<name>``."""
    words = str(stage_body(stage).get("cmd", "")).split()
    if "-m" in words and words[words.index("-m") + 1].startswith("stages."):
        return words[words.index("-m") + 1].replace(".", "/") + ".py"
    return None


def _is_code(dep: str) -> bool:
    """A dependency on code: a digest file, or (written by hand) a module or folder of code."""
    return dep.startswith((f"{CODE}/", f"{SCRIPTS}/", *(f"{p}/" for p in PACKAGES))) or dep in PACKAGES


MODELS_FOLDER = "models/"
TEMPLATE = re.compile(r"\$\{([^}]+)\}")


def _named_strings(value: object, key: str) -> Iterable[tuple[str, str]]:
    """(dotted key, string) for every string in ``value``, however deeply nested."""
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from _named_strings(item, f"{key}.{name}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _named_strings(item, f"{key}.{index}")


def _path(entry: object) -> str:
    return entry if isinstance(entry, str) else next(iter(entry))


def _written_folders(stages: dict) -> set[str]:
    return {
        _path(out)
        for stage in stages.values()
        for out in stage_body(stage).get("outs", [])
        if _path(out).startswith(MODELS_FOLDER) and not TEMPLATE.search(_path(out))
    }


def _named_folders(body: dict, params: dict) -> dict[str, str]:
    """The model folders the stage's params name: folder -> the dotted key naming it."""
    keys = [p if isinstance(p, str) else next(iter(p)) for p in body.get("params", [])]
    return {
        folder: leaf
        for key in keys
        for leaf, folder in _named_strings(lookup(params, key), key)
        if folder.startswith(MODELS_FOLDER)
    }


def model_folder_problems(stages: dict, params: dict, root: Path = ROOT) -> list[str]:
    """A model folder a stage reads is named once, by the params value the stage reads it from.

    Each stage's dependency on a folder under ``models/`` is written ``${key}`` (DVC fills it
    in from params.yaml, so the value and the dependency cannot differ), and every such
    folder its params name is a dependency: one a stage writes, or one that exists.
    """
    written = _written_folders(stages)
    problems = []
    for name, stage in stages.items():
        body = stage_body(stage)
        if stage_script(stage) is None:
            continue
        named = _named_folders(body, params)
        resolved = set()
        for dep in (d for d in body.get("deps", []) if not _is_code(d)):
            templated = TEMPLATE.fullmatch(dep)
            if templated and templated.group(1) in named.values():
                resolved.add(str(lookup(params, templated.group(1))))
            elif dep.startswith(MODELS_FOLDER) and not TEMPLATE.search(dep):
                problems.append(
                    f"{name}: deps name the model folder {dep} literally; write it as "
                    + (f"${{{named[dep]}}}" if dep in named else "${<the params key it is read from>}")
                )
        for folder, key in sorted(named.items()):
            if "foreach" in stage:
                continue  # a round's teacher comes from --teacher ${item.teacher}
            if folder not in written and not (root / folder).exists():
                problems.append(f"{name}: params {key} names {folder}, which no stage writes")
            elif folder not in resolved:
                problems.append(f"{name}: params {key} names {folder}, but the stage's deps lack it")
    return problems


def _model_folder_deps(data_deps: list, named: dict[str, str], add_missing: bool) -> list:
    """``data_deps`` with each model folder a params key names written as that key's template
    (and, with ``add_missing``, every folder the params name added)."""
    deps = []
    for dep in map(str, data_deps):
        literal_folder = dep.startswith(MODELS_FOLDER) and not TEMPLATE.search(dep)
        deps.append(f"${{{named[dep]}}}" if literal_folder and dep in named else dep)
    missing = sorted({f"${{{key}}}" for key in named.values()} - set(deps)) if add_missing else []
    return deps + missing


def check(dvc_file: Path = ROOT / DVC_FILE, root: Path = ROOT) -> list[str]:
    """Differences between dvc.yaml and the code, one line each (empty when current)."""
    import yaml

    from scicon.params import read_params_file

    problems = []
    stages = yaml.safe_load(dvc_file.read_text(encoding="utf-8"))["stages"]
    if stages.get(CODE) != CODE_STAGE:
        problems.append(f"the {CODE} stage is missing or differs from {CODE_STAGE}")
    problems += model_folder_problems(stages, read_params_file(root / "params.yaml"), root)
    for name, stage in stages.items():
        script = stage_script(stage)
        if script is None:
            continue
        body = stage_body(stage)
        declared = [d for d in body.get("deps", []) if _is_code(d)]
        wanted = digest_file(script)
        if wanted not in declared:
            problems.append(f"{name}: deps lack {wanted} (the digest of the code {script} runs)")
        for extra in sorted(set(declared) - {wanted}):
            problems.append(f"{name}: deps list {extra}; the stage's code is {wanted} alone")
        params = [p if isinstance(p, str) else next(iter(p)) for p in body.get("params", [])]
        wanted_params = expected_params(script, root)
        for missing in sorted(set(wanted_params) - set(params)):
            problems.append(f"{name}: params lack {missing}")
        for extra in sorted(set(params) - set(wanted_params)):
            problems.append(f"{name}: params list {extra}, which is not read or cannot change results")
    return problems


def write(dvc_file: Path = ROOT / DVC_FILE, root: Path = ROOT) -> None:
    """Rewrite each stage's digest-file dep, params and model-folder deps in dvc.yaml, keeping
    its comments and other data deps, and put the code stage first."""
    from ruamel.yaml import YAML

    from scicon.io import atomic_open
    from scicon.params import read_params_file

    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 110
    yaml.indent(mapping=2, sequence=4, offset=2)
    document = yaml.load(dvc_file.read_text(encoding="utf-8"))
    params = read_params_file(root / "params.yaml")
    for stage in document["stages"].values():
        script = stage_script(stage)
        if script is None:
            continue
        body = stage_body(stage)
        body["params"] = expected_params(script, root)
        data = [d for d in body.get("deps", []) if not _is_code(d)]
        # a round's teacher comes from --teacher ${item.teacher}, not from the goal's settings
        data = _model_folder_deps(data, _named_folders(body, params), add_missing="foreach" not in stage)
        body["deps"] = [digest_file(script), *data]
    if document["stages"].get(CODE) != CODE_STAGE:  # kept as written (comments) when current
        document["stages"].pop(CODE, None)
        document["stages"].insert(0, CODE, _code_stage())
    text = io.StringIO()
    yaml.dump(document, text)
    with atomic_open(dvc_file) as handle:
        handle.write(params_as_paragraphs(text.getvalue()))


BLOCK_PARAMS = re.compile(r"^(?P<indent> +)params:\n(?P<items>(?:(?P=indent)  - [^\n]+\n)+)", re.MULTILINE)


def params_as_paragraphs(text: str, width: int = 100) -> str:
    """Each stage's params list as one flow sequence, a line per params.yaml section (wrapped
    at ``width``), so a stage with forty keys still reads on one screen."""

    def section(key: str) -> str:
        return key.split(".")[0] if "." in key else ""  # top-level keys share one line

    def paragraph(match: re.Match) -> str:
        indent = f"{match['indent']}  "
        keys = [line.strip().removeprefix("- ") for line in match["items"].splitlines()]
        lines = []
        for _, group in itertools.groupby(keys, key=section):
            line: list[str] = []
            for key in group:
                if line and len(indent) + len(", ".join([*line, key])) + 1 > width:
                    lines.append(", ".join(line))
                    line = []
                line.append(key)
            lines.append(", ".join(line))
        return f"{match['indent']}params: [\n" + ",\n".join(indent + line for line in lines) + "]\n"

    return BLOCK_PARAMS.sub(paragraph, text)


def _code_stage():
    """The code stage for ruamel: flow-free, the cache setting nested as DVC writes it."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    stage = CommentedMap(cmd=CODE_STAGE["cmd"], deps=CommentedSeq(CODE_STAGE["deps"]))
    stage["outs"] = CommentedSeq([CommentedMap({CODE: CommentedMap(cache=False)})])
    return stage


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("check", "write", "digests"))
    parser.add_argument("--out", type=Path, default=Path(CODE), help="digests: the folder to write into")
    args = parser.parse_args(argv)
    if args.command == "digests":
        written = write_digests(args.out)
        print(f"{args.out}: {len(written)} digest files, one per stage script")
        return
    if args.command == "write":
        write()
        print(f"{DVC_FILE}: digest-file deps and params rewritten from the sources")
        return
    problems = check()
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} differences; `python -m scicon.codedeps write` updates {DVC_FILE}")
        sys.exit(1)
    print(f"{DVC_FILE}: every stage declares its code digest file and the params it reads")


if __name__ == "__main__":
    main()
