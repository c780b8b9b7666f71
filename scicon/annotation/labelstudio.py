"""Label Studio's files: the task import, and its JSON and JSON-MIN exports read back.

Label Studio is the annotation tool of the project because both of its ends are plain files:
a project imports a JSON list of tasks and a labeling config (XML) pasted into its settings,
and exports annotations as JSON, JSON-MIN or CSV — no server, SDK or API key is needed to
produce or read them, and the free community edition is enough. (Argilla, the alternative,
keeps datasets in its server and moves records through its Python SDK.) Each round writes its
own labeling config; the controls it names are what :func:`read_export` is asked for.

Exports are read in the two JSON shapes Label Studio writes:

- **JSON**: a list of tasks, each with ``data`` (our item_id and sentences) and
  ``annotations`` (``completions`` before Label Studio 1.0); an annotation has
  ``completed_by`` (a user id, or a dict with the user's id and email), ``was_cancelled`` (a
  skipped task, left out) and ``result`` regions named by ``from_name``: a choice
  (``value.choices``) or a text (``value.text``);
- **JSON-MIN**: one flat record per annotation: the data fields, one field per control and
  ``annotator``.

A file may start with a byte-order mark, as editors on Windows write it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from scicon.errors import InputFormatError


def task(item_id: str, sentence_a: str, sentence_b: str) -> dict:
    """One task of Label Studio's JSON import; the item id travels in the task data to the export."""
    return {"data": {"item_id": item_id, "sentence_a": sentence_a, "sentence_b": sentence_b}}


@dataclass(frozen=True)
class ExportedAnswer:
    """One annotation of an export, before it is checked against the round."""

    item_id: str
    choices: dict[str, str]  # control name -> the one value chosen, for the controls asked for
    texts: dict[str, str]  # control name -> the text written
    sentences: tuple[str, str] | None
    user: str | None  # the tool's user, when the file says; None: the file's annotator
    position: str  # "task 3", "record 3": where in the file, for messages
    number: int  # the task's or the record's number in the file


def _user(value: object) -> str | None:
    if isinstance(value, dict):
        value = value.get("email") or value.get("id")
    return None if value in (None, "") else str(value)


def _sentences(data: dict) -> tuple[str, str] | None:
    a, b = data.get("sentence_a"), data.get("sentence_b")
    return (str(a), str(b)) if isinstance(a, str) and isinstance(b, str) else None


def _choice(value: object, path: Path, position: str) -> str:
    """The single chosen value of a choices value (a list, a dict with 'choices', or a string)."""
    if isinstance(value, dict):
        value = value.get("choices", [])
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        if len(value) > 1:
            raise InputFormatError(str(path), f"{position}: more than one answer chosen: {value}")
        return value[0] if value else ""
    raise InputFormatError(str(path), f"{position}: answer {value!r} is not a choice")


def _item_id(data: object, path: Path, position: str) -> str:
    if not isinstance(data, dict) or not isinstance(data.get("item_id"), str):
        raise InputFormatError(
            str(path),
            f"{position}: no item_id in the task data (was it imported from the round's task file?)",
        )
    return data["item_id"]


def _full_export(
    tasks: list, path: Path, choices: Sequence[str], texts: Sequence[str]
) -> Iterator[ExportedAnswer]:
    for number, exported in enumerate(tasks, start=1):
        position = f"task {number}"
        if not isinstance(exported, dict):
            raise InputFormatError(str(path), f"{position}: not a task object")
        item = _item_id(exported.get("data"), path, position)
        for annotation in exported.get("annotations") or exported.get("completions") or []:
            if not isinstance(annotation, dict) or annotation.get("was_cancelled"):
                continue
            chosen, written = {}, {}
            for region in annotation.get("result") or []:
                name, value = region.get("from_name"), region.get("value") or {}
                if name in choices:
                    chosen[name] = _choice(value.get("choices", []), path, position)
                elif name in texts:
                    text = value.get("text", [])
                    written[name] = " ".join(text) if isinstance(text, list) else str(text)
            yield ExportedAnswer(
                item_id=item,
                choices=chosen,
                texts=written,
                sentences=_sentences(exported["data"]),
                user=_user(annotation.get("completed_by")),
                position=position,
                number=number,
            )


def _min_export(
    records: list, path: Path, choices: Sequence[str], texts: Sequence[str]
) -> Iterator[ExportedAnswer]:
    for number, record in enumerate(records, start=1):
        position = f"record {number}"
        item = _item_id(record, path, position)
        written = {}
        for name in texts:
            text = record.get(name) or ""
            written[name] = text if isinstance(text, str) else json.dumps(text)
        yield ExportedAnswer(
            item_id=item,
            choices={name: _choice(record.get(name) or "", path, position) for name in choices},
            texts=written,
            sentences=_sentences(record),
            user=_user(record.get("annotator")),
            position=position,
            number=number,
        )


def read_export(path: Path, choices: Sequence[str], texts: Sequence[str] = ()) -> list[ExportedAnswer]:
    """The annotations in a Label Studio JSON or JSON-MIN export (or in an unlabelled task file),
    with the values of the ``choices`` and ``texts`` controls of the round's labeling config."""
    try:
        document = json.loads(path.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError as error:
        raise InputFormatError(str(path), "not UTF-8 text") from error
    except json.JSONDecodeError as error:
        raise InputFormatError(str(path), f"not valid JSON: {error.msg}", error.lineno) from error
    if not isinstance(document, list):
        raise InputFormatError(str(path), "expected a Label Studio export: a JSON list of tasks")
    if not document:
        return []
    first = document[0]
    if isinstance(first, dict) and "data" in first:
        return list(_full_export(document, path, choices, texts))
    if isinstance(first, dict) and "item_id" in first:
        return list(_min_export(document, path, choices, texts))
    raise InputFormatError(str(path), "task 1: neither a Label Studio JSON task nor a JSON-MIN record")
