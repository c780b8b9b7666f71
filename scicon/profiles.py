"""Named sets of parameter values applied together: e.g. the paper's method, every part at once.

A profile is a YAML file in ``profiles/`` whose ``set`` maps dotted params keys to values
(``extends: other`` starts from another profile's).
``run`` starts a DVC experiment with all of them (``dvc exp run -S key=value ...``), so
params.yaml stays the one place defaults live and the experiment records what changed;
``show`` prints the arguments. Every key must already exist in params.yaml, and the
resulting sections must validate, before anything runs.

    python -m scicon.profiles show paper
    python -m scicon.profiles run paper -S evolve.max_pairs=6      # later -S win
    python -m scicon.profiles run paper pairs                      # that stage and what it needs
"""

from __future__ import annotations

import argparse
import copy
import re
import shlex
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from scicon.codedeps.closure import ROOT
from scicon.codedeps.dvcfile import stage_script
from scicon.codedeps.params_read import sections_read
from scicon.errors import ParamsError
from scicon.evolve.assembly import check_settings
from scicon.evolve.params import EvolveParams
from scicon.params import (
    Section,
    Thresholds,
    lookup,
    parse_params_text,
    read_params_file,
    validate_key,
    validate_section,
)

PROFILES = Path(__file__).resolve().parent.parent / "profiles"


def load_profile(name: str, folder: Path = PROFILES) -> dict[str, object]:
    """The profile's settings; with ``extends: OTHER``, OTHER's settings first and its own over them."""
    chain: list[dict] = []
    current: str | None = name
    while current is not None:
        if any(data["name"] == current for data in chain):
            raise ParamsError(f"profile {name}: its 'extends' chain comes back to {current!r}")
        data = _profile_file(current, folder)
        chain.append({"name": current, "set": data["set"]})
        current = data.get("extends")
    settings: dict[str, object] = {}
    for data in reversed(chain):
        settings.update(data["set"])
    return settings


def _profile_file(name: str, folder: Path) -> dict:
    path = folder / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in folder.glob("*.yaml")))
        raise ParamsError(f"no profile {name!r} in {folder} (known: {known})")
    # read as params.yaml is (YAML 1.2): an unquoted `off` in a profile stays a string
    data = parse_params_text(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data.get("set"), dict):
        raise ParamsError(f"{path}: expected a 'set' mapping of params keys to values")
    return data


@dataclass(frozen=True)
class Departure:
    """A setting where params.yaml's default is not the paper's, and why."""

    key: str
    default: object
    paper: object
    why: str
    in_profile: bool


# The profile that is the paper: everything it sets is a departure of the default, with its reason.
PAPER_PROFILE = "paper"


def departures(params: dict, name: str = PAPER_PROFILE, folder: Path = PROFILES) -> list[Departure]:
    """The paper profile's settings, each a departure of ``params`` with its reason (``why``),
    then the departures it leaves alone (``left``). A key set without a reason, a reason for a
    key not set, or a value the default already has is an error: the profile would not be the
    paper, or the table would not be the profile."""
    data = _profile_file(name, folder)
    origin = f"profile {name}"
    settings, reasons = data["set"], data.get("why") or {}
    if set(settings) != set(reasons):
        unexplained = sorted(set(settings) - set(reasons))
        stray = sorted(set(reasons) - set(settings))
        raise ParamsError(f"{origin}: every key it sets needs a reason in 'why' (no reason: {unexplained}; "
                          f"a reason for a key it does not set: {stray})")  # fmt: skip
    rows = []
    for key, value in settings.items():
        default = _value_at(params, key, origin)
        if default == value:
            raise ParamsError(f"{origin}: params.yaml's {key} is already {value!r}: not a departure")
        rows.append(Departure(key, default, value, reasons[key], in_profile=True))
    for key, left in (data.get("left") or {}).items():
        if key in settings or not isinstance(left, dict) or set(left) != {"paper", "why"}:
            raise ParamsError(
                f"{origin}: 'left' entry {key!r} needs exactly 'paper' and 'why', for a key not set"
            )
        rows.append(
            Departure(key, _value_at(params, key, origin), left["paper"], left["why"], in_profile=False)
        )
    return rows


def _value_at(params: dict, key: str, origin: str) -> object:
    node: object = params
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            raise ParamsError(f"{origin}: params.yaml has no key {key!r}")
        node = node[part]
    return node


def departures_table(params: dict, folder: Path = PROFILES) -> str:
    """The Markdown table of the default's departures from the paper (docs/evolve.md shows it)."""
    lines = [
        f"| setting | default | paper | `{PAPER_PROFILE}` profile sets it | why the default departs |",
        "|---|---|---|---|---|",
    ]
    for row in departures(params, folder=folder):
        default = "the section" if isinstance(row.default, dict) else f"`{_inline(row.default)}`"
        paper = f"`{_inline(row.paper)}`" if row.in_profile else str(row.paper)
        cells = [f"`{row.key}`", default, paper, "yes" if row.in_profile else "no", row.why]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def _inline(value: object) -> str:
    """A value as params.yaml's flow style writes it: null, 0.9, [a, b]."""
    text = yaml.safe_dump(value, default_flow_style=True, width=1000).strip()
    return text.removesuffix("...").strip()


def apply_overrides(params: dict, overrides: Mapping[str, object], origin: str = "override") -> dict:
    """A copy of ``params`` with dotted ``key: value`` overrides; a key params.yaml lacks is an error."""
    changed = copy.deepcopy(params)
    for key, value in overrides.items():
        *parents, leaf = key.split(".")
        node = changed
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict) or leaf not in node:
            moved = moved_to(key)
            where = f": it has moved to {moved!r}" if moved else ""
            raise ParamsError(f"{origin}: params.yaml has no key {key!r}{where}")
        node[leaf] = value
    return changed


def _stage_scripts() -> list[Path]:
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    scripts = (stage_script(stage) for stage in stages.values())
    return list(dict.fromkeys(ROOT / script for script in scripts if script is not None))


def moved_to(key: str) -> str | None:
    """The key that replaced ``key``, where a section a stage reads lists it in its ``moved_keys``."""
    for script in _stage_scripts():
        for read in sections_read(script):
            if read.single_key or not read.section or not key.startswith(f"{read.section}."):
                continue
            moved = read.model_class().moved_keys.get(key.removeprefix(f"{read.section}."))
            if moved is not None:
                return f"{read.section}.{moved}"
    return None


def parse_assignments(assignments: list[str]) -> dict[str, object]:
    """``KEY=VALUE`` strings, each value as ``dvc exp run -S`` reads it (Hydra: ``off`` is a string)."""
    parsed = {}
    for assignment in assignments:
        key, separator, value = assignment.partition("=")
        if not separator:
            raise ParamsError(f"{assignment!r}: expected KEY=VALUE")
        parsed[key.lstrip("+")] = read_back(assignment)
    return parsed


def set_arguments(overrides: Mapping[str, object]) -> list[str]:
    """``-S KEY=VALUE`` arguments that DVC's override parser (Hydra's grammar) reads back as the values."""
    arguments = []
    for key, value in overrides.items():
        # Hydra refuses to put new keys into a mapping (`rounds: {}`) unless forced with "++"
        force = "++" if isinstance(value, Mapping) else ""
        assignment = f"{force}{key}={hydra_value(value)}"
        if read_back(assignment) != value:
            raise ParamsError(f"{key}: {value!r} cannot be written as a -S argument DVC reads back unchanged")
        arguments += ["-S", assignment]
    return arguments


def hydra_value(value: object) -> str:
    """A value in Hydra's override grammar, where quoted strings are literal (YAML's "\\t" is not a tab)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        # inside quotes Hydra unescapes only a quote and the backslashes right before a quote
        escaped = re.sub(
            r"(\\*)('|$)", lambda m: m.group(1) * 2 + ("\\" + m.group(2) if m.group(2) else ""), value
        )
        return f"'{escaped}'"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key}: {hydra_value(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(hydra_value(item) for item in value) + "]"
    raise ParamsError(
        f"{value!r}: a params value is null, a boolean, a number, a string, a list or a mapping"
    )


def read_back(assignment: str) -> object:
    """The value DVC's ``-S`` parser reads from ``assignment`` (hydra comes with DVC)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    try:
        return OverridesParser.create().parse_override(assignment).value()
    except Exception as error:  # Hydra's grammar errors have no common public base class
        raise ParamsError(f"{assignment!r}: DVC's -S parser refuses it: {error}") from None


def validate(params: dict) -> None:
    """Every section of the changed params must still validate, and so must the component
    blocks of EvoNLI's parts (``evolve.settings``), which its section holds unchecked: the
    stages would refuse them."""
    for script in _stage_scripts():
        sections: dict[str, Section] = {}
        thresholds = None
        for read in sections_read(script):
            if read.single_key:
                validate_key(read.single_key, params.get(read.single_key))
                continue
            model = read.model_class()
            values = (
                lookup(params, read.section)
                if read.section
                else {k: params.get(k) for k in model.model_fields}
            )
            section = validate_section(model, values, f"{read.section}." if read.section else "")
            if isinstance(section, Thresholds):
                thresholds = section
            elif read.section:
                sections[read.section] = section
        for name, section in sections.items():
            if isinstance(section, EvolveParams) and thresholds is not None:
                others = {other: value for other, value in sections.items() if other != name}
                check_settings(section, thresholds, **others)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("show", "run"))
    parser.add_argument("profile")
    parser.add_argument("targets", nargs="*", help="run these stages and what they depend on (default: all)")
    parser.add_argument("-S", "--set", dest="extra", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("-n", "--name", help="experiment name (default: the profile's)")
    args = parser.parse_args(argv)
    try:
        overrides = {**load_profile(args.profile), **parse_assignments(args.extra)}
        validate(apply_overrides(read_params_file("params.yaml"), overrides, f"profile {args.profile}"))
    except ParamsError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    arguments = set_arguments(overrides)
    if args.command == "show":
        print(shlex.join(arguments))
        return
    name = args.name or args.profile
    command = [sys.executable, "-m", "dvc", "exp", "run", "-n", name, *arguments, *args.targets]
    raise SystemExit(subprocess.run(command).returncode)


if __name__ == "__main__":
    main()
