"""Answer files read back: one row per answer, ``item_id<TAB>label<TAB>garbled``, checked.

An annotator answers every item of a batch with a label and a garbled flag (1: sentence B reads
as machine-edited or ungrammatical), in either of two files:

- a TSV, ``item_id<TAB>label<TAB>garbled`` per line, blank lines and ``#`` comments allowed;
- a Label Studio export (:mod:`scicon.annotation.labelstudio`) of a labeling config whose
  choices are named ``label`` and ``garbled``.

Both give the same rows, (number, item_id, label, garbled) with the line or task number for
messages, and :func:`checked_answers` stops at the first that is not an answer to the batch.
"""

from __future__ import annotations

from pathlib import Path

from scicon.annotation.labelstudio import read_export
from scicon.errors import InputFormatError
from scicon.io import decoded_lines

LABEL_FIELD = "label"
GARBLED_FIELD = "garbled"
ANSWER_SUFFIXES = (".tsv", ".json")

AnswerRow = tuple[int, str, str, str]  # line or task number, item id, label, garbled ("0"/"1")


def tsv_answers(path: Path) -> list[AnswerRow]:
    """The rows of a TSV answer file; a line without three fields stops with file and line."""
    rows = []
    with open(path, "rb") as stream:
        lines = list(decoded_lines(stream, str(path)))
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cells = [cell.strip() for cell in raw.rstrip("\r\n").split("\t")]
        if len(cells) != 3:
            raise InputFormatError(
                str(path), f"expected item_id<TAB>label<TAB>garbled, found {len(cells)} fields", number
            )
        rows.append((number, *cells))
    return rows


def labelstudio_answers(path: Path) -> list[AnswerRow]:
    """The labelled annotations of an export; one without a label is not an answer."""
    return [
        (
            answer.number,
            answer.item_id,
            answer.choices[LABEL_FIELD],
            "1" if answer.choices.get(GARBLED_FIELD) else "0",
        )
        for answer in read_export(path, choices=(LABEL_FIELD, GARBLED_FIELD))
        if answer.choices.get(LABEL_FIELD)
    ]


def answer_rows(path: Path) -> list[AnswerRow]:
    """The rows of an answer file, a TSV or a Label Studio export (``.json``)."""
    return tsv_answers(path) if path.suffix == ".tsv" else labelstudio_answers(path)


def checked_answers(
    path: Path,
    rows: list[AnswerRow],
    annotator: str,
    given: set[str],
    labels: tuple[str, ...],
) -> list[tuple[str, str, int]]:
    """An annotator's answer rows as (item, label, garbled); an item not given to them, one
    answered twice, a label not among ``labels`` or a garbled flag other than 0/1 stops with
    the file and line named."""
    seen: dict[str, int] = {}
    checked = []
    for number, item_id, label, garbled in rows:
        if item_id not in given:
            raise InputFormatError(str(path), f"item {item_id!r} was not given to {annotator}", number)
        if item_id in seen:
            raise InputFormatError(
                str(path), f"item {item_id} answered twice (first on line {seen[item_id]})", number
            )
        if label not in labels:
            raise InputFormatError(str(path), f"label {label!r} is not one of {', '.join(labels)}", number)
        if garbled not in ("0", "1"):
            raise InputFormatError(str(path), f"garbled {garbled!r} is not 0 or 1", number)
        seen[item_id] = number
        checked.append((item_id, label, int(garbled)))
    return checked
