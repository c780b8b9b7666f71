"""Reference tables in docs/ generated from the registries, so the docs list what the code has.

A page marks a generated table with a pair of HTML comments::

    <!-- generated: registry transformation -->
    ...the table...
    <!-- end generated -->

``python -m scicon.docs write`` fills every such block from the registry it names (every
entry: its name, what it does, whether it calls a backbone, and its settings block with
the values params.yaml gives them); ``check`` fails when a page is out of date (a test
runs it). A block whose opening marker is indented (a table inside a list item) is written
at that indentation. ``recipes`` renders the named recipes of :mod:`scicon.evolve.recipes`;
``comparability-checks`` the finder's comparability checks (:mod:`scicon.find.checks`);
``paper-departures`` the settings where the default departs from the paper (profiles/paper.yaml);
``stale-stages`` which stages each parameter makes stale, read from dvc.yaml's declarations.

A figure quoted in the prose is rendered the same way from the committed file it comes from,
so it cannot drift from the run it reports::

    EvoNLI accepts <!-- figure: metrics/evolve.json accepted -->18<!-- end figure --> pairs

``figure: FILE KEY [FORMAT]``: ``FILE`` a JSON or YAML file under the repository (``metrics/``,
``reports/``, docs/measurements.yaml), ``KEY`` a dotted path in it, ``FORMAT`` a Python format
spec (``.3f``, ``,``, ``.1%``); a missing file or key stops ``write`` and ``check`` with both
named. A value that is a list of three numbers is a figure with its interval and renders as
``0.790 [0.696, 0.878]``, each number in ``FORMAT``; ``KEY.point`` renders its first number alone.

Figures of runs whose outputs are not committed (the real-abstracts runs, the judges on gold)
live in docs/measurements.yaml, one entry per measurement with its command, date and commit.
Every quote of them is a marker, and ``check`` holds the docs to that: a figure of the
registry with three or more decimals, or one of its intervals, written anywhere in the docs
without a marker fails it, naming the page, line and measurement. So a quote cannot disagree
with another quote of the same measurement: both render from one entry, and a copy typed by
hand is caught. A number that merely equals a registered figure (another measurement's)
is written after ``<!-- unregistered -->``. A fenced ``console`` block is a command's output as it
printed it, quoted whole (a comment inside it would show), so the check reads past it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from scicon.assembly_context import settings_read
from scicon.backbones import BACKENDS
from scicon.constraints import CONSTRAINTS
from scicon.evaluate.baselines import BASELINES
from scicon.evaluate.loaders import BENCHMARK_LOADERS
from scicon.evolve.assembly import EDITS
from scicon.evolve.recipes import recipes_table
from scicon.find.checks import COMPARABILITY_CHECKS
from scicon.goal import GOALS
from scicon.params import lookup, read_params_file
from scicon.profiles import departures_table
from scicon.rules.operators import OPERATORS
from scicon.search import SEARCHES
from scicon.transformations import TRANSFORMATIONS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
_BLOCK = re.compile(
    r"^(?P<indent>[ \t]*)(?P<start><!-- generated: (?P<what>[^>]+?) -->\n)(?P<body>.*?)"
    r"[ \t]*<!-- end generated -->",
    re.DOTALL | re.MULTILINE,
)
_FIGURE = re.compile(
    r"(<!-- figure: (?P<file>\S+) (?P<key>\S+)(?: (?P<format>\S+))? -->)(?P<value>[^<]*)(<!-- end figure -->)"
)
# a command's output as printed (```console ... ```): quoted whole, never a figure copied by hand
_CONSOLE = re.compile(r"^```console\n.*?^```", re.DOTALL | re.MULTILINE)


def _registry(kind: str):
    registries = {
        "transformation": TRANSFORMATIONS,
        "constraint": CONSTRAINTS,
        "goal": GOALS,
        "search": SEARCHES,
        "backend": BACKENDS,
        "loader": BENCHMARK_LOADERS,
        "baseline": BASELINES,
        "operator": OPERATORS,
    }
    if kind not in registries:
        raise KeyError(f"no registry {kind!r} (known: {', '.join(registries)})")
    return registries[kind]


def _settings_in_params(kind: str, name: str) -> dict | None:
    """The settings block params.yaml gives an evolve component (None for other kinds)."""
    params = read_params_file(ROOT / "params.yaml")
    part, _, short = name.rpartition(".") if kind == "constraint" else (kind, "", name)
    if kind not in ("transformation", "constraint", "goal", "search"):
        return None
    if part == EDITS.prefix.rstrip("."):
        part = EDITS.key  # edit constraints register as edit.<name>; their blocks are settings.edits
    return (params["evolve"]["settings"].get(part) or {}).get(short)


def registry_table(kind: str) -> str:
    lines = ["| name | what it does | backbone | settings (params.yaml) |", "|---|---|---|---|"]
    for entry in _registry(kind):
        settings = ""
        if entry.settings is not None:
            given = _settings_in_params(kind, entry.name) or {}
            reads = settings_read(entry.facts)
            fields = [
                f"`{field}`"
                + (f" = `{given[field]}`" if field in given else "")
                + (f" from `{reads[field]}`" if field in reads else "")
                for field in entry.settings.model_fields
            ]
            settings = ", ".join(fields)
        requires = "; ".join(f"needs {key} {' or '.join(v)}" for key, v in entry.requires.items())
        description = entry.description + (f" ({requires})" if requires else "")
        lines.append(
            f"| `{entry.name}` | {description} | {'yes' if entry.needs_backbone else ''} | {settings} |"
        )
    return "\n".join(lines)


def _options(settings: type[BaseModel] | None) -> str:
    if settings is None:
        return "none (`{}`)"
    return "<br>".join(
        f"`{name}`: {info.description or ''}".rstrip(": ") for name, info in settings.model_fields.items()
    )


def _table(registry, header: tuple[str, ...], notes: Callable, columns: Callable) -> str:
    lines = [f"| {' | '.join(header)} |", "|" + "---|" * len(header)]
    for entry in registry:
        description = entry.description.replace("|", "\\|") + notes(entry)
        cells = [f"`{entry.name}`", description, *columns(entry), _options(entry.settings)]
        lines.append(f"| {' | '.join(cells)} |")
    return "\n".join(lines)


def loaders_table() -> str:
    """Markdown table of the loaders, evaluation's own included: kind, what it reads, its options."""

    def notes(entry) -> str:
        said = [
            "derived: no path" if entry.facts.derived else "",
            "path: a file or a folder" if entry.facts.reads_folders else "",
            "evaluation only" if entry.factory.__module__.startswith("scicon.evaluate.") else "",
        ]
        return f" ({'; '.join(filter(None, said))})" if any(said) else ""

    def columns(entry) -> list[str]:
        return [entry.facts.keys, entry.facts.groups]

    return _table(BENCHMARK_LOADERS, ("kind", "reads", "pair key", "grouped by", "options"), notes, columns)


def baselines_table() -> str:
    """Markdown table of the trivial baselines: name, what it scores, its settings."""

    def notes(entry) -> str:
        return "; reported both ways (`_negated`)" if entry.facts.two_sided else ""

    return _table(BASELINES, ("baseline", "score", "settings"), notes, lambda entry: [])


def comparability_checks_table() -> str:
    """Markdown table of the finder's comparability checks: the kind its reasons are counted
    under, what it flags (its module's docstring, else its description) and its module."""
    lines = ["| check | what it flags | module |", "|---|---|---|"]
    for entry in COMPARABILITY_CHECKS:
        module = entry.factory.__module__
        said = (sys.modules[module].__doc__ or entry.description).split("\n\n")[0]
        flags = " ".join(said.split()).replace("``", "`").replace("|", "\\|")
        lines.append(f"| `{entry.name}` | {flags} | `{module.replace('.', '/')}.py` |")
    return "\n".join(lines)


def declared_params(dvc_file: Path = ROOT / "dvc.yaml") -> dict[str, list[str]]:
    """The params.yaml keys each stage of ``dvc_file`` depends on, in pipeline order (a
    ``foreach`` stage under its own name: one instance per round): those it declares, and those
    its command or dependencies interpolate (``--judge ${evolve.settings.goal.classifier.model}``
    reruns the build when the judge's folder changes, though the build declares no evolve key)."""
    import yaml

    stages = yaml.safe_load(dvc_file.read_text(encoding="utf-8"))["stages"]
    return {name: _keys_of(stage.get("do", stage)) for name, stage in stages.items()}


def _keys_of(stage: dict) -> list[str]:
    declared = [key for key in stage.get("params", []) if isinstance(key, str)]
    texts = [stage.get("cmd", ""), *(dep for dep in stage.get("deps", []) if isinstance(dep, str))]
    interpolated = [
        key
        for text in texts
        for key in re.findall(r"\$\{\s*([\w.]+)\s*\}", text)
        if key.partition(".")[0] not in ("item", "key")  # a foreach stage's own round
    ]
    return list(dict.fromkeys(declared + interpolated))


def params_keys(params: dict) -> list[str]:
    """Every top-level key of params.yaml that is a value, and every key one level into a section."""
    keys = []
    for name, value in params.items():
        if isinstance(value, dict) and value:
            keys.extend(f"{name}.{inner}" for inner in value)
        else:
            keys.append(name)
    return keys


def stages_reading(key: str, declared: dict[str, list[str]]) -> list[str]:
    """The stages a change anywhere under ``key`` makes stale: those declaring it, a key under
    it, or the block that holds it."""

    def related(declared_key: str) -> bool:
        return declared_key == key or declared_key.startswith(f"{key}.") or key.startswith(f"{declared_key}.")

    return [stage for stage, keys in declared.items() if any(related(k) for k in keys)]


def stale_stages_table() -> str:
    declared = declared_params()
    params = read_params_file(ROOT / "params.yaml")
    lines = ["| parameter | stages it makes stale |", "|---|---|"]
    for key in params_keys(params):
        stages = stages_reading(key, declared)
        lines.append(f"| `{key}` | {', '.join(f'`{stage}`' for stage in stages) or 'none'} |")
    return "\n".join(lines)


def _render(what: str) -> str:
    kind, _, argument = what.partition(" ")
    renderers: dict[str, Callable[[], str]] = {
        "registry": lambda: registry_table(argument),
        "recipes": _recipes,
        "loaders": loaders_table,
        "baselines": baselines_table,
        "comparability-checks": comparability_checks_table,
        "stale-stages": stale_stages_table,
        "paper-departures": _paper_departures,
    }
    if kind not in renderers:
        raise KeyError(f"unknown generated block {what!r}")
    return renderers[kind]() + "\n"


def _recipes() -> str:
    return recipes_table()


def _paper_departures() -> str:
    return departures_table(read_params_file(ROOT / "params.yaml"))


MEASUREMENTS = "docs/measurements.yaml"
_UNREGISTERED = "<!-- unregistered -->"
# a number with a decimal point, not part of a longer one
_NUMBER = re.compile(r"(?<![\d.])\d+\.\d+(?![\d]|\.\d)")
_INTERVAL = re.compile(r"\[\s*(\d+\.\d+),\s*(\d+\.\d+)\s*\]")


def _load(path: Path):
    import yaml

    text = path.read_text(encoding="utf-8")
    return yaml.safe_load(text) if path.suffix in (".yaml", ".yml") else json.loads(text)


def _formatted(value, spec: str | None) -> str:
    if isinstance(value, list) and len(value) == 3 and all(isinstance(v, int | float) for v in value):
        point, low, high = (format(v, spec) if spec else str(v) for v in value)
        return f"{point} [{low}, {high}]"
    return format(value, spec) if spec else str(value)


_PARTS = ("point", "low", "high")


def figure(file: str, key: str, spec: str | None = None, root: Path = ROOT) -> str:
    """The value at dotted ``key`` of the JSON or YAML file ``file`` (relative to ``root``),
    formatted; ``KEY.point`` (``.low``, ``.high``) is one number of a figure with its interval."""
    path = root / file
    if not path.is_file():
        raise KeyError(f"figure: {file}: no such file")
    data = _load(path)
    value = lookup(data, key)
    whole, _, part = key.rpartition(".")
    if value is None and part in _PARTS and isinstance(lookup(data, whole), list):
        value = lookup(data, whole)[_PARTS.index(part)]
    if value is None:
        raise KeyError(f"figure: {file}: no key {key!r}")
    return _formatted(value, spec)


def _registered(root: Path, page_texts: dict[str, str]) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """The registry's figures as the docs write them: points (three or more decimals) and
    intervals, each mapped to its key; a key is written in the formats its markers use
    (``.3f`` where none quotes it yet)."""
    path = root / MEASUREMENTS
    if not path.is_file():
        return {}, {}
    specs: dict[str, set[str | None]] = {}
    for text in page_texts.values():
        for marker in _FIGURE.finditer(text):
            if marker.group("file") == MEASUREMENTS:
                whole, _, part = marker.group("key").rpartition(".")
                key = whole if part in _PARTS else marker.group("key")
                specs.setdefault(key, set()).add(marker.group("format"))
    points: dict[str, str] = {}
    intervals: dict[tuple[str, str], str] = {}
    for key, numbers in _numeric_leaves(_load(path)):
        for spec in specs.get(key, {".3f"}):
            written = [format(v, spec) if spec else str(v) for v in numbers]
            if len(written) == 3:
                intervals[(written[1], written[2])] = key
            if _distinctive(written[0]):
                points[written[0]] = key
    return points, intervals


def _numeric_leaves(node, prefix: str = ""):
    """(dotted key, [number] or [point, low, high]) for every figure of the registry."""
    if isinstance(node, dict):
        for name, value in node.items():
            yield from _numeric_leaves(value, f"{prefix}.{name}" if prefix else str(name))
    elif isinstance(node, float):
        yield prefix, [node]
    elif isinstance(node, list) and len(node) == 3 and all(isinstance(v, float) for v in node):
        yield prefix, node


def _distinctive(written: str) -> bool:
    """Three or more decimals: "0.790" is a measurement, "0.50" or "18" could be anything."""
    return len(written.partition(".")[2]) >= 3


def unmarked_copies(root: Path = ROOT, folder: Path | None = None) -> list[str]:
    """Every figure of docs/measurements.yaml written without a marker, as ``page:line: ...``."""
    texts = {
        str(page.relative_to(root)): page.read_text(encoding="utf-8")
        for page in pages(folder or root / "docs", root)
    }
    points, intervals = _registered(root, texts)
    found = []
    for name, text in texts.items():
        plain = _CONSOLE.sub(_blank, _FIGURE.sub(_blank, _BLOCK.sub(_blank, text)))
        outside = _INTERVAL.sub(_blank, plain)
        copies = [
            (match, intervals.get((match.group(1), match.group(2))), "'s interval")
            for match in _INTERVAL.finditer(plain)
        ] + [(match, points.get(match.group(0)), "") for match in _NUMBER.finditer(outside)]
        for match, key, what in sorted(copies, key=lambda copy: copy[0].start()):
            if key and not _exempt(plain, match.start()):
                where = f"{name}:{_line(text, match.start())}"
                found.append(f"{where}: {match.group(0)} equals {MEASUREMENTS} {key}{what}")
    return found


def _blank(match: re.Match) -> str:
    """Spaces of the match's length, so offsets still give line numbers."""
    return " " * len(match.group(0))


def _exempt(text: str, start: int) -> bool:
    return text[:start].rstrip(" *").endswith(_UNREGISTERED)


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _generated(match: re.Match) -> str:
    """A generated block rendered afresh, every line at the indentation of its opening marker."""
    indent = match.group("indent")
    body = "".join(
        indent + line if line.strip() else line for line in _render(match.group("what")).splitlines(True)
    )
    return f"{indent}{match.group('start')}{body}{indent}<!-- end generated -->"


def render_page(text: str, root: Path = ROOT) -> str:
    text = _BLOCK.sub(_generated, text)
    return _FIGURE.sub(
        lambda m: m.group(1) + figure(m.group("file"), m.group("key"), m.group("format"), root) + m.group(6),
        text,
    )


def pages(folder: Path = DOCS, root: Path = ROOT) -> list[Path]:
    return sorted(folder.glob("*.md")) + [root / "README.md"]


def stale_pages(folder: Path = DOCS) -> list[Path]:
    return [
        page
        for page in pages(folder)
        if render_page(page.read_text(encoding="utf-8")) != page.read_text(encoding="utf-8")
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("check", "write"))
    args = parser.parse_args(argv)
    if args.command == "write":
        for page in pages():
            text = page.read_text(encoding="utf-8")
            rendered = render_page(text)
            if rendered != text:
                page.write_text(rendered, encoding="utf-8")
                print(f"{page.relative_to(ROOT)}: generated tables rewritten")
        return
    stale = stale_pages()
    for page in stale:
        print(f"{page.relative_to(ROOT)}: generated tables are out of date")
    if stale:
        print("`python -m scicon.docs write` regenerates them")
    copies = unmarked_copies()
    for copy in copies:
        print(f"{copy}, written without a marker")
    if copies:
        print(f"quote it as <!-- figure: {MEASUREMENTS} KEY FORMAT -->...<!-- end figure -->, or put")
        print(f"{_UNREGISTERED} before a number that is another measurement's")
    if stale or copies:
        sys.exit(1)
    print("docs: every generated table is current, every registered figure a marker")


if __name__ == "__main__":
    main()
