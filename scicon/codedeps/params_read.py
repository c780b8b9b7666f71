"""The params keys a stage script reads (its ``load_section``, ``load_thresholds`` and
``load_key`` calls, found in the source) that can change its results: what its dvc.yaml
``params`` must list, and what a resumable stage folds into its digest."""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from scicon.codedeps.closure import ROOT
from scicon.params import is_operational, nested_section


def rerun_keys(model: type[BaseModel], prefix: str, whole_blocks: bool = False) -> list[str]:
    """Dotted params keys of a section model that change results (operational ones left out);
    a nested block (``backbone.openai``) is listed key by key, or with ``whole_blocks``, as a
    stage declares them, by its own key where none of its keys is operational (``ingest``,
    ``backbone.transformers``): as exact, since a section accepts no key its model lacks."""
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
