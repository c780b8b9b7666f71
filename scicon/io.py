"""File helpers shared by every stage: atomic writes and validated JSON Lines.

Writes go to a temporary file beside the target and are moved into place with
``os.replace``, so an interrupted stage never leaves a half-written output that
DVC (or the next stage) could mistake for a finished one; a folder of outputs is written
into a staging folder beside it and swapped in whole (:func:`staged_folder`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, BinaryIO, TypeVar

from pydantic import BaseModel, ValidationError

from scicon.errors import InputFormatError, InputNotFoundError

ModelT = TypeVar("ModelT", bound=BaseModel)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w") -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success fsync it and move it over ``path``."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(fd, mode, encoding=encoding) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


@contextlib.contextmanager
def staged_folder(folder: str | os.PathLike) -> Iterator[Path]:
    """A fresh staging folder beside ``folder`` to write into; on success it replaces ``folder``
    whole, on any interruption it is removed and ``folder`` keeps what it held."""
    target = Path(folder)
    staging = target.with_name(f".{target.name}.staging")
    previous = target.with_name(f".{target.name}.previous")
    for leftover in (staging, previous):
        shutil.rmtree(leftover, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if target.exists():
        target.rename(previous)
    staging.rename(target)
    shutil.rmtree(previous, ignore_errors=True)


def hash_file(path: str | os.PathLike, *algorithms: str) -> tuple[str, ...]:
    """Hex digests of a file for each named hashlib algorithm, reading it once in chunks."""
    hashers = [hashlib.new(name, usedforsecurity=False) for name in algorithms or ("sha256",)]
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 22):
            for hasher in hashers:
                hasher.update(chunk)
    return tuple(hasher.hexdigest() for hasher in hashers)


def hash_folder(path: str | os.PathLike) -> str:
    """SHA-256 of a folder's files: their paths relative to it and their contents, in path order, so
    an edit, an added, removed or renamed file changes it."""
    root = Path(path)
    digest = hashlib.sha256(usedforsecurity=False)
    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(file.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hash_file(file)[0].encode() + b"\n")
    return digest.hexdigest()


def read_id_list(path: str | os.PathLike) -> frozenset[str]:
    """Abstract ids, one a line: PMIDs (digits) or PMCIDs (``PMC`` and digits), as written; blank
    lines and ``#`` comments allowed. Anything else stops with the file and line."""
    path = Path(path)
    if not path.is_file():
        raise InputNotFoundError(f"{path}: list of abstract ids not found")
    ids = set()
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        value = raw.split("#", 1)[0].strip()
        if not value:
            continue
        if not value.removeprefix("PMC").isdigit():
            raise InputFormatError(str(path), f"expected a PMID or a PMCID, got {value!r}", number)
        ids.add(value)
    return frozenset(ids)


def write_json(path: str | os.PathLike, data: object) -> None:
    with atomic_open(path) as handle:
        json.dump(data, handle, indent=2, sort_keys=True, ensure_ascii=False)
        handle.write("\n")


def write_jsonl(path: str | os.PathLike, records: Iterable[BaseModel]) -> int:
    """Write records as JSON Lines atomically; returns how many were written."""
    count = 0
    with atomic_open(path) as handle:
        for record in records:
            handle.write(record.model_dump_json())
            handle.write("\n")
            count += 1
    return count


def decoded_lines(stream: BinaryIO, origin: str, encoding: str = "utf-8") -> Iterator[str]:
    """The lines of a binary ``stream``, line endings kept; bytes that are not ``encoding``
    raise :class:`InputFormatError` naming ``origin`` and the line (a text-mode file would
    raise a bare UnicodeDecodeError that names neither). ``utf-8-sig`` drops a leading BOM."""
    for number, raw in enumerate(stream, start=1):
        try:
            yield raw.decode(encoding if number == 1 else "utf-8")
        except UnicodeDecodeError as error:
            raise InputFormatError(origin, f"not UTF-8 text ({error.reason})", number) from error


def read_jsonl(path: str | os.PathLike, model: type[ModelT]) -> Iterator[ModelT]:
    """Yield validated records; a bad line raises :class:`InputFormatError` naming file and line."""
    with open(path, "rb") as handle:
        for line_number, line in enumerate(decoded_lines(handle, str(path)), start=1):
            if not line.strip():
                continue
            try:
                yield model.model_validate_json(line)
            except ValidationError as error:
                raise InputFormatError(
                    str(path), f"not a valid {model.__name__} record: {_first_error(error)}", line_number
                ) from error


def read_json_objects(path: str | os.PathLike) -> Iterator[tuple[int, dict]]:
    """Each line's JSON object with its line number, for files of no fixed record type (benchmark
    rows, labelled claims); a bad line raises :class:`InputFormatError` naming file and line."""
    with open(path, "rb") as handle:
        for number, line in enumerate(decoded_lines(handle, str(path)), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputFormatError(str(path), f"not valid JSON: {error.msg}", number) from error
            if not isinstance(row, dict):
                raise InputFormatError(str(path), "expected a JSON object", number)
            yield number, row


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    location = ".".join(str(part) for part in first["loc"]) or "record"
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{location}: {first['msg']}{more}"
