"""Section models built from the repository's params.yaml, the only place defaults live.

Tests state only the values they are about; everything else is what a user gets.
"""

from __future__ import annotations

from pathlib import Path

from scicon.params import SectionT, read_params_file

PARAMS_FILE = Path(__file__).resolve().parent.parent / "params.yaml"


def section_values(name: str) -> dict:
    return dict(read_params_file(PARAMS_FILE)[name])


def section(name: str, model: type[SectionT], **overrides) -> SectionT:
    """The ``name`` section of params.yaml as ``model``, with ``overrides`` applied."""
    return model.model_validate({**section_values(name), **overrides})
