"""Label Studio files: the task import, the labeling config with the question, and reading exports.

Label Studio is the annotation tool of the kit because both of its ends are plain files:
a project imports a JSON list of tasks and a labeling config (XML) pasted into its
settings, and exports annotations as JSON, JSON-MIN or CSV — no server, SDK or API key
is needed to produce or read them, and the free community edition is enough. (Argilla,
the alternative, keeps datasets in its server and moves records through its Python SDK.)

Exports are read in the two JSON shapes Label Studio writes (its CSV export has the
JSON-MIN columns and is read by :mod:`scicon.audit.annotations`):

- **JSON**: a list of tasks, each with ``data`` (our item_id and sentences) and
  ``annotations``; an annotation has ``completed_by`` (a user id, or a dict with the
  user's id and email), ``was_cancelled`` (a skipped task) and ``result`` regions named by
  ``from_name`` — ``answer`` (``value.choices``) and ``comment`` (``value.text``);
- **JSON-MIN**: one flat record per annotation: the data fields, ``answer``, ``comment``
  and ``annotator``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import quoteattr

from scicon.audit.question import GUIDANCE, QUESTION, Answer
from scicon.errors import InputFormatError

ANSWER_FIELD = "answer"
COMMENT_FIELD = "comment"


def labeling_config() -> str:
    """The labeling interface: both sentences, the question, three choices and a comment box."""
    choices = "\n".join(f"    <Choice value={quoteattr(answer.value)}/>" for answer in Answer)
    return f"""<View>
  <Header value={quoteattr(QUESTION)}/>
  <Text name="guidance" value={quoteattr(GUIDANCE)}/>
  <Header value="Sentence A" size="5"/>
  <Text name="sentence_a" value="$sentence_a"/>
  <Header value="Sentence B" size="5"/>
  <Text name="sentence_b" value="$sentence_b"/>
  <Choices name="{ANSWER_FIELD}" toName="sentence_a" choice="single" showInline="true" required="true">
{choices}
  </Choices>
  <TextArea name="{COMMENT_FIELD}" toName="sentence_a" rows="2" maxSubmissions="1"
            placeholder="Optional comment (please say why when unsure)"/>
</View>
"""


def task(item_id: str, sentence_a: str, sentence_b: str) -> dict:
    """One task of Label Studio's JSON import; the item id travels in the task data to the export."""
    return {"data": {"item_id": item_id, "sentence_a": sentence_a, "sentence_b": sentence_b}}


@dataclass(frozen=True)
class RawAnswer:
    """One answer as a file holds it, before it is checked against the sample."""

    item_id: str
    answer: str
    comment: str
    sentences: tuple[str, str] | None
    user: str | None  # the tool's user, when the file says; None: the file's annotator
    position: str  # "line 7", "task 3": where in the file, for messages
    line: int | None = None


def _user(value: object) -> str | None:
    if isinstance(value, dict):
        value = value.get("email") or value.get("id")
    return None if value in (None, "") else str(value)


def _sentences(data: dict) -> tuple[str, str] | None:
    a, b = data.get("sentence_a"), data.get("sentence_b")
    return (str(a), str(b)) if isinstance(a, str) and isinstance(b, str) else None


def _choice(value: object, path: Path, position: str) -> str:
    """The single chosen answer of a choices value (a list, a dict with 'choices', or a string)."""
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
            f"{position}: no item_id in the task data (was it imported from the audit's task file?)",
        )
    return data["item_id"]


def _full_export(tasks_: list, path: Path) -> Iterator[RawAnswer]:
    for number, task in enumerate(tasks_, start=1):
        position = f"task {number}"
        if not isinstance(task, dict):
            raise InputFormatError(str(path), f"{position}: not a task object")
        item = _item_id(task.get("data"), path, position)
        # Label Studio before 1.0 called annotations "completions"
        annotations = task.get("annotations") or task.get("completions") or []
        for annotation in annotations:
            if not isinstance(annotation, dict) or annotation.get("was_cancelled"):
                continue
            answer, comment = "", ""
            for region in annotation.get("result") or []:
                value = region.get("value") or {}
                if region.get("from_name") == ANSWER_FIELD:
                    answer = _choice(value.get("choices", []), path, position)
                elif region.get("from_name") == COMMENT_FIELD:
                    text = value.get("text", [])
                    comment = " ".join(text) if isinstance(text, list) else str(text)
            yield RawAnswer(
                item_id=item,
                answer=answer,
                comment=comment,
                sentences=_sentences(task["data"]),
                user=_user(annotation.get("completed_by")),
                position=position,
            )


def _min_export(records: list, path: Path) -> Iterator[RawAnswer]:
    for number, record in enumerate(records, start=1):
        position = f"record {number}"
        item = _item_id(record, path, position)
        comment = record.get(COMMENT_FIELD) or ""
        yield RawAnswer(
            item_id=item,
            answer=_choice(record.get(ANSWER_FIELD) or "", path, position),
            comment=comment if isinstance(comment, str) else json.dumps(comment),
            sentences=_sentences(record),
            user=_user(record.get("annotator")),
            position=position,
        )


def read_export(path: Path) -> list[RawAnswer]:
    """The answers in a Label Studio JSON or JSON-MIN export (or in an unlabelled task file)."""
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
        return list(_full_export(document, path))
    if isinstance(first, dict) and "item_id" in first:
        return list(_min_export(document, path))
    raise InputFormatError(str(path), "task 1: neither a Label Studio JSON task nor a JSON-MIN record")
