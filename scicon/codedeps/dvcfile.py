"""dvc.yaml against the code: ``check`` lists each difference, ``write`` rewrites each stage's
digest-file dependency, params and model-folder dependencies from the sources, keeping its
comments and other data dependencies, with the ``code`` stage first."""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Iterable
from pathlib import Path

from scicon.codedeps.closure import CODE, PACKAGES, ROOT, SCRIPTS, digest_file
from scicon.codedeps.params_read import expected_params
from scicon.io import atomic_open
from scicon.params import lookup, read_params_file

DVC_FILE = "dvc.yaml"
CODE_STAGE = {
    "cmd": f"python -m scicon.codedeps digests --out {CODE}",
    "deps": [PACKAGES[0], SCRIPTS],
    "outs": [{CODE: {"cache": False}}],
}


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
    folder its params name is a dependency: one a stage writes, one a ``.dvc`` file tracks (a
    folder made elsewhere and pulled), or one that exists.
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
            if (
                folder not in written
                and not (root / f"{folder}.dvc").is_file()
                and not (root / folder).exists()
            ):
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
