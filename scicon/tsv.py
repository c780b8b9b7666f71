"""Word lists and rule tables kept as data: tab-separated files with a header and comments.

The format every such table shares: ``#`` lines explain the columns, blank lines are
ignored, the first other line names the columns, and every row has exactly that many
tab-separated fields. A malformed row stops the reader with the file and line named,
so a bad edit to a table reads as an input error, not as a silently missing rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from scicon.errors import InputFormatError


@dataclass(frozen=True)
class Row:
    line: int
    fields: dict[str, str]


def read_table(path: Path) -> Iterator[Row]:
    """The rows of the table at ``path`` in file order, fields stripped, keyed by column name."""
    header: list[str] | None = None
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.split("\t")
            if header is None:
                header = cells
                continue
            if len(cells) != len(header):
                raise InputFormatError(
                    str(path), f"expected {len(header)} tab-separated fields, found {len(cells)}", number
                )
            yield Row(number, dict(zip(header, (cell.strip() for cell in cells), strict=True)))


def check_value(path: Path, row: Row, key: str, allowed: tuple[str, ...]) -> str:
    """``row``'s ``key`` field, which must be one of ``allowed``; the error names file and line."""
    value = row.fields[key]
    if value not in allowed:
        raise InputFormatError(
            str(path), f"{key} must be one of {', '.join(allowed)}, got {value!r}", row.line
        )
    return value
