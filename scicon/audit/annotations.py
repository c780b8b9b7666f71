"""Reading the annotators' files back: validated answers per annotator and item.

The annotations folder holds one file per annotator, named after the annotator
(``annotator-3.csv``, ``annotator-3.json``; anything after the first dot is ignored, so
the blinded ``annotator-3.labelstudio.json`` name works too). A file is

- a CSV with the columns ``item_id`` and ``answer`` (the blinded CSV, filled in; Label
  Studio's CSV export has them too), optionally ``comment``, ``sentence_a``/``sentence_b``
  and ``annotator``;
- a Label Studio JSON or JSON-MIN export (:mod:`scicon.audit.labelstudio`).

A file whose records name more than one tool user (a Label Studio project shared by the
whole panel) gives one annotator per user, named ``<file>/<user>``.

Errors that need a person — an answer that is not one of the accepted ones, an item id
that is not an audit id, the same item answered twice, a missing column, a file that is
not UTF-8 — stop with the file and row named. A blank answer is not an error: partial
annotation is reported, not refused. An answer to an item that is not in the current
sample, or whose sentences differ from the sample's, is **stale** (annotated on an earlier
build): it is logged with its file and row, counted, and left out, so a rebuilt SciCon
does not break ``dvc repro`` and the answers that still apply keep counting.
"""

from __future__ import annotations

import csv
import logging
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from scicon.audit.labelstudio import RawAnswer, read_export
from scicon.audit.question import Answer, parse_answer
from scicon.audit.sample import ITEM_ID_PATTERN
from scicon.errors import InputFormatError
from scicon.records.audit import AuditItem
from scicon.textdiff import normalised_sentence

log = logging.getLogger(__name__)

ANNOTATION_SUFFIXES = (".csv", ".json")
IGNORED_SUFFIXES = (".md", ".txt")
REQUIRED_COLUMNS = ("item_id", "answer")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]*")


@dataclass(frozen=True)
class Judgment:
    annotator: str
    item_id: str
    answer: Answer
    comment: str


@dataclass
class AnnotatorFiles:
    """What was read for one annotator."""

    files: list[str] = field(default_factory=list)
    answers: int = 0  # non-blank answers to current items (unsure included)
    unsure: int = 0
    blank: int = 0  # rows or tasks present without an answer
    stale: int = 0  # answers to items not in the current sample, or whose sentences changed


@dataclass
class Annotations:
    judgments: list[Judgment]
    annotators: dict[str, AnnotatorFiles]
    files: list[str]

    @property
    def stale(self) -> int:
        return sum(a.stale for a in self.annotators.values())


def read_csv(path: Path) -> list[RawAnswer]:
    """The answers of a filled-in blinded CSV (or a Label Studio CSV export)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputFormatError(
            str(path), "not UTF-8 text; save the sheet as 'CSV UTF-8 (comma delimited)'"
        ) from error
    reader = csv.reader(text.splitlines(keepends=True))
    try:
        header = [column.strip() for column in next(reader, [])]
    except csv.Error as error:
        raise InputFormatError(str(path), f"not valid CSV: {error}", 1) from error
    missing = [column for column in REQUIRED_COLUMNS if column not in header]
    if missing:
        raise InputFormatError(
            str(path), f"missing column(s) {', '.join(missing)} (found: {', '.join(header) or 'none'})", 1
        )
    answers = []
    end_of_previous = reader.line_num
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            raise InputFormatError(str(path), f"not valid CSV: {error}", end_of_previous + 1) from error
        line, end_of_previous = end_of_previous + 1, reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            raise InputFormatError(str(path), f"{len(row)} cells but {len(header)} columns", line)
        record = dict(zip(header, row, strict=False))
        a, b = record.get("sentence_a"), record.get("sentence_b")
        answers.append(
            RawAnswer(
                item_id=(record.get("item_id") or "").strip(),
                answer=record.get("answer") or "",
                comment=(record.get("comment") or "").strip(),
                sentences=(a, b) if a is not None and b is not None else None,
                user=(record.get("annotator") or "").strip() or None,
                position=f"line {line}",
                line=line,
            )
        )
    return answers


def _fail(path: Path, raw: RawAnswer, message: str) -> InputFormatError:
    if raw.line is not None:
        return InputFormatError(str(path), message, raw.line)
    return InputFormatError(str(path), f"{raw.position}: {message}")


def annotator_files(folder: Path) -> dict[str, Path]:
    """Annotation files in ``folder`` by annotator name; two files for one annotator are an error."""
    found: dict[str, Path] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or not path.is_file() or path.suffix.lower() in IGNORED_SUFFIXES:
            continue
        if path.suffix.lower() not in ANNOTATION_SUFFIXES:
            log.warning("audit: %s is not an annotation file (.csv or .json); skipped", path)
            continue
        name = path.name.split(".")[0]
        if not _NAME.fullmatch(name):
            raise InputFormatError(str(path), "name an annotation file <annotator>.csv or <annotator>.json")
        if name in found:
            raise InputFormatError(str(path), f"a second file for annotator {name!r} (first: {found[name]})")
        found[name] = path
    return found


def read_annotations(folder: Path, items: Iterable[AuditItem]) -> Annotations:
    """Every annotator's validated answers to the sample ``items`` from the files in ``folder``."""
    sample = {item.item_id: item for item in items}
    judgments: list[Judgment] = []
    annotators: dict[str, AnnotatorFiles] = defaultdict(AnnotatorFiles)
    files = annotator_files(folder)
    for name, path in files.items():
        raw_answers = read_csv(path) if path.suffix.lower() == ".csv" else read_export(path)
        users = {raw.user for raw in raw_answers}
        seen: dict[tuple[str, str], RawAnswer] = {}
        for raw in raw_answers:
            annotator = name if len(users) <= 1 else f"{name}/{raw.user or 'unknown'}"
            report = annotators[annotator]
            if str(path) not in report.files:
                report.files.append(str(path))
            judgment = _check(path, raw, annotator, sample, seen, report)
            if judgment is not None:
                judgments.append(judgment)
        if not raw_answers:
            annotators[name].files.append(str(path))
    for name, report in sorted(annotators.items()):
        log.info(
            "audit: %s: %d answers (%d unsure), %d blank, %d stale, from %s",
            name,
            report.answers,
            report.unsure,
            report.blank,
            report.stale,
            ", ".join(report.files),
        )
    return Annotations(
        judgments=judgments,
        annotators=dict(sorted(annotators.items())),
        files=[str(path) for path in files.values()],
    )


def _check(
    path: Path,
    raw: RawAnswer,
    annotator: str,
    sample: Mapping[str, AuditItem],
    seen: dict[tuple[str, str], RawAnswer],
    report: AnnotatorFiles,
) -> Judgment | None:
    if not re.fullmatch(ITEM_ID_PATTERN, raw.item_id):
        raise _fail(path, raw, f"{raw.item_id!r} is not an audit item id (like 'item-0123456789ab')")
    try:
        answer = parse_answer(raw.answer)
    except ValueError as error:
        raise _fail(path, raw, str(error)) from error
    key = (annotator, raw.item_id)
    if key in seen:
        raise _fail(path, raw, f"{raw.item_id} is answered twice (first at {seen[key].position})")
    seen[key] = raw
    if answer is None:
        report.blank += 1
        return None
    item = sample.get(raw.item_id)
    if item is None:
        report.stale += 1
        log.warning(
            "audit: %s %s: %s is not in the current sample; left out", path, raw.position, raw.item_id
        )
        return None
    if raw.sentences is not None and {normalised_sentence(s) for s in raw.sentences} != {
        normalised_sentence(item.example.sentence1),
        normalised_sentence(item.example.sentence2),
    }:
        report.stale += 1
        log.warning(
            "audit: %s %s: the sentences of %s differ from the current sample's (annotated on an earlier "
            "build?); left out",
            path,
            raw.position,
            raw.item_id,
        )
        return None
    report.answers += 1
    report.unsure += answer is Answer.UNSURE
    return Judgment(annotator=annotator, item_id=raw.item_id, answer=answer, comment=raw.comment.strip())
