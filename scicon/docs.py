"""Reference tables in docs/ generated from the registries, so the docs list what the code has.

A page marks a generated table with a pair of HTML comments::

    <!-- generated: registry transformation -->
    ...the table...
    <!-- end generated -->

``python -m scicon.docs write`` fills every such block from the registry it names (every
entry: its name, what it does, whether it calls a backbone, and its settings block with
the values params.yaml gives them); ``check`` fails when a page is out of date (a test
runs it). ``recipes`` renders the named recipes of :mod:`scicon.evolve.recipes`;
``paper-departures`` the settings where the default departs from the paper (profiles/paper.yaml);
``stale-stages`` which stages each parameter makes stale, read from dvc.yaml's declarations.

A figure quoted in the prose is rendered the same way from the committed file it comes from,
so it cannot drift from the run it reports::

    EvoNLI accepts <!-- figure: metrics/evolve.json accepted -->18<!-- end figure --> pairs

``figure: FILE KEY [FORMAT]``: ``FILE`` a JSON file under the repository (``metrics/`` or
``reports/``), ``KEY`` a dotted path in it, ``FORMAT`` a Python format spec (``.3f``, ``,``,
``.1%``); a missing file or key stops ``write`` and ``check`` with both named.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from scicon.backbones import BACKENDS
from scicon.constraints import CONSTRAINTS
from scicon.evaluate.baselines import BASELINES
from scicon.evaluate.loaders import BENCHMARK_LOADERS
from scicon.evolve.recipes import recipes_table
from scicon.goal import GOALS
from scicon.params import lookup, read_params_file
from scicon.profiles import departures_table
from scicon.rules.operators import OPERATORS
from scicon.search import SEARCHES
from scicon.transformations import TRANSFORMATIONS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
_BLOCK = re.compile(
    r"(<!-- generated: (?P<what>[^>]+?) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.DOTALL
)
_FIGURE = re.compile(
    r"(<!-- figure: (?P<file>\S+) (?P<key>\S+)(?: (?P<format>\S+))? -->)(?P<value>[^<]*)(<!-- end figure -->)"
)


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
    return (params["evolve"]["settings"].get(part) or {}).get(short)


def registry_table(kind: str) -> str:
    lines = ["| name | what it does | backbone | settings (params.yaml) |", "|---|---|---|---|"]
    for entry in _registry(kind):
        settings = ""
        if entry.settings is not None:
            given = _settings_in_params(kind, entry.name) or {}
            fields = [
                f"`{field}`" + (f" = `{given[field]}`" if field in given else "")
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


def declared_params(dvc_file: Path = ROOT / "dvc.yaml") -> dict[str, list[str]]:
    """The params.yaml keys each stage of ``dvc_file`` declares, in pipeline order (a
    ``foreach`` stage under its own name: one instance per round)."""
    import yaml

    stages = yaml.safe_load(dvc_file.read_text(encoding="utf-8"))["stages"]
    return {
        name: [key for key in stage.get("do", stage).get("params", []) if isinstance(key, str)]
        for name, stage in stages.items()
    }


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


def figure(file: str, key: str, spec: str | None = None, root: Path = ROOT) -> str:
    """The value at dotted ``key`` of the JSON file ``file`` (relative to ``root``), formatted."""
    import json

    path = root / file
    if not path.is_file():
        raise KeyError(f"figure: {file}: no such file")
    value = lookup(json.loads(path.read_text(encoding="utf-8")), key)
    if value is None:
        raise KeyError(f"figure: {file}: no key {key!r}")
    return format(value, spec) if spec else str(value)


def render_page(text: str, root: Path = ROOT) -> str:
    text = _BLOCK.sub(lambda m: m.group(1) + _render(m.group("what")) + m.group(4), text)
    return _FIGURE.sub(
        lambda m: m.group(1) + figure(m.group("file"), m.group("key"), m.group("format"), root) + m.group(6),
        text,
    )


def pages(folder: Path = DOCS) -> list[Path]:
    return sorted(folder.glob("*.md")) + [ROOT / "README.md"]


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
        sys.exit(1)
    print("docs: every generated table is current")


if __name__ == "__main__":
    main()
