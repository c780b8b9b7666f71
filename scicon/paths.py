"""Where SciCon keeps state that is not a DVC output.

Downloads and (later) the backbone call cache live in one cache root outside the
repository, so that `dvc exp run` and fresh clones reuse what was already paid for.
Set ``SCICON_CACHE_DIR`` to move it; otherwise it follows ``XDG_CACHE_HOME``.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "SCICON_CACHE_DIR"


def cache_root() -> Path:
    configured = os.environ.get(CACHE_ENV)
    if configured:
        root = Path(configured).expanduser()
    else:
        root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "scicon"
    root.mkdir(parents=True, exist_ok=True)
    return root
