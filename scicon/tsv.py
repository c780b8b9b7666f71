"""Word lists and rule tables kept as data: tab-separated files with a header and comments.

The format every such table shares: ``#`` lines explain the columns, blank lines are
ignored, the first other line names the columns, and every row has exactly that many
tab-separated fields. A malformed row, or bytes that are not UTF-8, stop the reader with the
file and line named, so a bad edit to a table reads as an input error, not as a silently
missing rule. Claims files share the format (:mod:`scicon.find.claims`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from scicon.errors import InputFormatError
from scicon.io import decoded_lines


@dataclass(frozen=True)
class Row:
    line: int
    fields: dict[str, str]


def read_table(path: Path, required: tuple[str, ...] = ()) -> Iterator[Row]:
    """The rows of the table at ``path`` in file order, fields stripped, keyed by column name;
    a header without one of the ``required`` columns stops at the header's line."""
    header: list[str] | None = None
    with open(path, "rb") as stream:
        for number, raw in enumerate(decoded_lines(stream, str(path), "utf-8-sig"), start=1):
            line = raw.rstrip("\r\n")
            if not line.strip() or line.startswith("#"):
                continue
            cells = [cell.strip() for cell in line.split("\t")]
            if header is None:
                header = cells
                missing = [name for name in required if name not in header]
                if missing:
                    raise InputFormatError(
                        str(path),
                        f"the header names no {missing[0]!r} column (it has {', '.join(header)})",
                        number,
                    )
                continue
            if len(cells) != len(header):
                raise InputFormatError(
                    str(path), f"expected {len(header)} tab-separated fields, found {len(cells)}", number
                )
            yield Row(number, dict(zip(header, cells, strict=True)))


def check_value(path: Path, row: Row, key: str, allowed: tuple[str, ...]) -> str:
    """``row``'s ``key`` field, which must be one of ``allowed``; the error names file and line."""
    value = row.fields[key]
    if value not in allowed:
        raise InputFormatError(
            str(path), f"{key} must be one of {', '.join(allowed)}, got {value!r}", row.line
        )
    return value
