"""The tables of docs/evaluate.md, rendered from the registries so the page cannot drift from the code.

``python -m scicon.evaluate.docs`` rewrites the generated blocks of docs/evaluate.md
(between ``<!-- generated: NAME -->`` and ``<!-- end: NAME -->``); a test checks that
the page is current.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from scicon.evaluate.baselines import BASELINES
from scicon.evaluate.loaders import LOADERS
from scicon.registry import Registry

DOC = Path(__file__).resolve().parents[2] / "docs" / "evaluate.md"


def _options(settings: type[BaseModel] | None) -> str:
    if settings is None:
        return "none (`{}`)"
    return "<br>".join(
        f"`{name}`: {info.description or ''}".rstrip(": ") for name, info in settings.model_fields.items()
    )


def _table(registry: Registry, header: tuple[str, ...], notes: Callable, columns: Callable) -> str:
    lines = [f"| {' | '.join(header)} |", "|" + "---|" * len(header)]
    for entry in registry:
        description = entry.description.replace("|", "\\|") + notes(entry)
        cells = [f"`{entry.name}`", description, *columns(entry), _options(entry.settings)]
        lines.append(f"| {' | '.join(cells)} |")
    return "\n".join(lines)


def loaders_table() -> str:
    """Markdown table of the benchmark loaders: kind, what it reads, its options."""

    def notes(entry) -> str:
        if entry.extra.get("derived"):
            return " (derived: no path)"
        if entry.extra.get("reads_folders"):
            return " (path: a file or a folder)"
        return ""

    def columns(entry) -> list[str]:
        return [entry.extra["keys"], entry.extra["groups"]]

    return _table(LOADERS, ("kind", "reads", "pair key", "grouped by", "options"), notes, columns)


def baselines_table() -> str:
    """Markdown table of the trivial baselines: name, what it scores, its settings."""

    def notes(entry) -> str:
        return "; reported both ways (`_negated`)" if entry.extra.get("two_sided") else ""

    return _table(BASELINES, ("baseline", "score", "settings"), notes, lambda entry: [])


GENERATED = {"loaders": loaders_table, "baselines": baselines_table}


def render(text: str) -> str:
    """``text`` with every generated block replaced by its current rendering."""
    for name, make in GENERATED.items():
        pattern = re.compile(rf"(<!-- generated: {name} -->\n).*?(\n<!-- end: {name} -->)", re.DOTALL)
        if not pattern.search(text):
            raise ValueError(f"no generated block {name!r} in the page")
        text = pattern.sub(lambda match, make=make: match.group(1) + make() + match.group(2), text)
    return text


def main() -> None:
    DOC.write_text(render(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"{DOC}: generated tables rewritten")


if __name__ == "__main__":
    main()
