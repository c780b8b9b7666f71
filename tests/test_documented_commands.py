"""Every `python -m ...` and `dvc ...` command in README.md and docs/ parses as written.

Commands are read from fenced code blocks (backslash continuations joined, comments dropped,
`&&` chains split) and from inline code spans. For each: the module exists; its subcommand
and every option it is given appear in its own `--help` (for dvc, the subcommand's); each
`-S KEY=VALUE` names a key params.yaml has. Placeholders such as DIR or `...` stand as values.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import re
import runpy
import shlex
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

from scicon.params import read_params_file

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# Our own modules are checked option by option; others (llama_cpp.server, pytest) must exist.
OWN = ("scicon", "perf", "stages")
_FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.DOTALL | re.MULTILINE)
_INLINE = re.compile(r"`((?:python3?|\.venv/bin/python) -m [^`]+|dvc [a-z][^`]*)`")
_SEPARATORS = {"&&", "||", ";", "|"}


@dataclass(frozen=True)
class Command:
    where: str  # page:line
    tokens: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.where}: {shlex.join(self.tokens)}"


def documented_commands(pages=PAGES) -> list[Command]:
    commands = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        name = page.relative_to(REPO) if page.is_relative_to(REPO) else page
        for block in _FENCE.finditer(text):
            first_line = text.count("\n", 0, block.start(1)) + 1
            commands += _commands_in(block.group(1), name, first_line)
        for span in _INLINE.finditer(_outside_fences(text)):
            line = text.count("\n", 0, span.start()) + 1
            commands += _commands_in(span.group(1), name, line)
    return commands


def _outside_fences(text: str) -> str:
    """The page with fenced blocks blanked (same length, so offsets still give line numbers)."""
    return _FENCE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _commands_in(block: str, page: Path, first_line: int) -> list[Command]:
    commands = []
    lines = block.split("\n")
    number = 0
    while number < len(lines):
        start = number
        line = lines[number]
        while line.rstrip().endswith("\\") and number + 1 < len(lines):
            number += 1
            line = line.rstrip()[:-1] + " " + lines[number]
        number += 1
        try:
            tokens = shlex.split(line.removeprefix("$ "), comments=True)
        except ValueError:
            continue  # not shell (a Python or YAML example)
        for part in _split_chain(tokens):
            command = _from_interpreter(part)
            if command:
                commands.append(Command(f"{page}:{first_line + start}", tuple(command)))
    return commands


def _split_chain(tokens: list[str]) -> list[list[str]]:
    parts, current = [], []
    for token in tokens:
        if token in _SEPARATORS:
            parts.append(current)
            current = []
        else:
            current.append(token)
    return [*parts, current]


def _from_interpreter(tokens: list[str]) -> list[str] | None:
    """``python -m MODULE ...`` as ``[MODULE, ...]`` and ``dvc ...`` as ``["dvc", ...]``."""
    for index, token in enumerate(tokens):
        if "=" in token and not token.startswith("-"):
            continue  # VAR=value before the command
        if re.fullmatch(r"(?:.*/)?python3?(?:\.\d+)?", token) and tokens[index + 1 : index + 2] == ["-m"]:
            return tokens[index + 2 :] or None
        if token == "dvc" or token.endswith("/dvc"):
            return ["dvc", *tokens[index + 1 :]]
        return None
    return None


@functools.cache
def help_text(*command: str) -> str:
    """``command --help`` as its user sees it, run in this process (a command run as
    ``python -m`` would import its modules again for every command: seconds each); empty
    when it fails."""
    arguments = [*command[1:], "--help"]
    printed = io.StringIO()
    saved_argv = sys.argv
    status: object = 0
    try:
        with (
            contextlib.redirect_stdout(printed),
            contextlib.redirect_stderr(printed),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("ignore", RuntimeWarning)  # runpy: a module already imported
            try:
                if command[0] == "dvc":
                    from dvc.cli import main

                    status = main(arguments)
                else:
                    sys.argv = [command[0], *arguments]
                    runpy.run_module(command[0], run_name="__main__", alter_sys=True)
            except SystemExit as stop:
                status = stop.code
    finally:
        sys.argv = saved_argv
    return printed.getvalue() if status in (0, None) else ""


@functools.cache
def subcommands(*command: str) -> tuple[str, ...]:
    """The subcommands a help text lists: argparse's ``{a,b,c}``, or dvc's top-level
    "Available Commands" (``experiments (exp)`` names two)."""
    text = help_text(*command)
    match = re.search(r"\{([a-z0-9_,-]+)\}", text)
    if match:
        return tuple(match.group(1).split(","))
    listed = text.partition("Available Commands:")[2]
    return tuple(
        name
        for names in re.findall(r"^ {4}([a-z][a-z-]*(?: \([a-z-]+\))?)", listed, re.MULTILINE)
        for name in names.replace("(", "").replace(")", "").split()
    )


def params_keys() -> set[str]:
    keys = set()

    def walk(prefix: str, node) -> None:
        keys.add(prefix)
        if isinstance(node, dict):
            for key, value in node.items():
                walk(f"{prefix}.{key}" if prefix else key, value)

    walk("", read_params_file(REPO / "params.yaml"))
    return keys


def problems(command: Command, keys: set[str]) -> list[str]:
    head, *arguments = command.tokens
    if head != "dvc":
        if importlib.util.find_spec(head.split(".")[0]) is None or importlib.util.find_spec(head) is None:
            return [f"{command}: no module {head!r}"]
        if not head.startswith(OWN):
            return []
    path = [head]
    while arguments and arguments[0] in subcommands(*path):
        path.append(arguments.pop(0))
    if arguments and subcommands(*path) and head == "dvc" and not arguments[0].startswith("-"):
        return [f"{command}: `{' '.join(path)}` has no subcommand {arguments[0]!r}"]
    text = help_text(*path)
    if not text:
        return [f"{command}: `{' '.join(path)} --help` fails"]
    found = []
    for index, argument in enumerate(arguments):
        if argument.startswith("-") and argument != "-" and not re.fullmatch(r"-\d.*", argument):
            option = argument.split("=", 1)[0]
            if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text):
                found.append(f"{command}: `{' '.join(path)}` has no option {option}")
        previous = arguments[index - 1] if index else ""
        if previous in ("-S", "--set", "--set-param"):
            key = argument.split("=", 1)[0]
            # DVC (Hydra) changes a key params.yaml has; "+key" adds one under an existing parent
            adding = key.startswith("+")
            key = key.lstrip("+")
            if adding and key.rpartition(".")[0] not in keys:
                found.append(f"{command}: params.yaml has no section {key.rpartition('.')[0]!r} to add to")
            elif not adding and key not in keys:
                found.append(f"{command}: params.yaml has no key {key!r} (a new one is written +{key})")
    return found


COMMANDS = documented_commands()


def test_the_docs_hold_the_commands_a_reader_runs():
    assert len(COMMANDS) > 60
    modules = {command.tokens[0] for command in COMMANDS}
    assert {"dvc", "scicon.profiles", "scicon.judgements", "perf.backbone_scaleout"} <= modules


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_a_documented_command_parses(command):
    assert problems(command, params_keys()) == []


@pytest.mark.slow
def test_a_misspelt_option_an_unknown_key_and_a_missing_subcommand_are_found(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "Run `python -m scicon.audit score --sample DIR --figuers F`.\n\n"
        "```bash\n"
        "dvc exp run -S evolve.pair_kind=[result_conclusion] \\\n"
        "    -S sim=0.7   # a comment\n"
        "python -m perf.backbone_scaleout --corpus x && dvc metrics diff\n"
        "dvc metrix show\n"
        "python -m scicon.no_such_module\n"
        "```\n",
        encoding="utf-8",
    )
    found = documented_commands([page])
    assert [c.tokens[0] for c in found] == [
        "dvc", "perf.backbone_scaleout", "dvc", "dvc", "scicon.no_such_module", "scicon.audit",
    ]  # fmt: skip
    keys = params_keys()
    reported = [problem for command in found for problem in problems(command, keys)]
    assert any("has no option --figuers" in p for p in reported)
    assert any("no key 'evolve.pair_kind'" in p for p in reported)
    assert not any("'sim'" in p for p in reported)
    assert any("perf.backbone_scaleout" in p and "has no option --corpus" in p for p in reported)
    assert any("no module 'scicon.no_such_module'" in p for p in reported)
    assert not any("metrics diff" in p for p in reported)
    assert any("has no subcommand 'metrix'" in p for p in reported)
