"""Errors a user can act on. Stages print these as one line naming what to fix.

Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class SciconError(Exception):
    """Base class for errors caused by inputs, parameters or the environment."""


class ParamsError(SciconError, ValueError):
    """params.yaml is missing a key or holds a bad value; the message names both."""


class InputFormatError(SciconError, ValueError):
    """An input file is malformed; the message names the file and, where known, the line."""

    def __init__(self, origin: str, message: str, line: int | None = None):
        self.origin = origin
        self.line = line
        where = f"{origin}:{line}" if line is not None else origin
        super().__init__(f"{where}: {message}")


class InputNotFoundError(SciconError, FileNotFoundError):
    """A configured input file does not exist."""


class DownloadError(SciconError, RuntimeError):
    """A download failed after its retries (network error or HTTP error status)."""


class ChecksumMismatchError(DownloadError):
    """Downloaded or local bytes do not match the pinned checksum."""


class NoWorkError(SciconError, RuntimeError):
    """A stage was given work and did none; the message names the cause and the setting to change."""
