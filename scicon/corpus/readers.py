"""Open a corpus file of any supported kind and yield its abstracts.

Supported: PubMed RCT text (plain or tokenised release text), PubMed XML, PubMedQA's
labelled JSON (``ori_pqal.json``), any of them gzipped, and ``.zip`` / ``.7z`` archives
holding RCT text (the 200k RCT train split ships as ``train.7z``); and Evidence Inference
articles (``PMC<id>.abst`` files, :mod:`scicon.corpus.evidence_inference`) as a folder or a
``.zip`` of them (the upstream repository's archive, ``member`` naming the folder inside).
The format inside a file is recognised from its name and, failing that, from its first bytes.
"""

from __future__ import annotations

import gzip
import lzma
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from scicon.corpus import evidence_inference
from scicon.corpus.model import RawAbstract
from scicon.corpus.pubmed_xml import parse_pubmed_xml
from scicon.corpus.pubmedqa import looks_like_pubmedqa, parse_pubmedqa
from scicon.corpus.rct_text import Detokenize, parse_rct_lines
from scicon.errors import InputFormatError
from scicon.io import decoded_lines
from scicon.records.base import Skip

ARCHIVE_SUFFIXES = (".zip", ".7z")


def read_corpus(
    path: Path,
    *,
    member: str | None = None,
    detokenize: Detokenize = "auto",
    excluded_ids: tuple[str, ...] = (),
) -> Iterator[RawAbstract | Skip]:
    """Yield abstracts (and skips) from ``path``; ``member`` picks a file (or, for Evidence
    Inference articles, a folder) inside an archive, whose id-list members ``excluded_ids`` name
    articles to leave out."""
    name = path.name.lower()
    if path.is_dir():
        if member is not None:
            raise InputFormatError(str(path), f"is a folder, so it has no member {member!r}")
        yield from evidence_inference.read_folder(path)
    elif name.endswith(".zip"):
        yield from _read_zip(path, member, detokenize, excluded_ids)
    elif name.endswith(".7z"):
        yield from _read_7z(path, member, detokenize)
    else:
        if member is not None:
            raise InputFormatError(str(path), f"is not an archive, so it has no member {member!r}")
        with open(path, "rb") as stream:
            yield from _read_stream(stream, str(path), name, detokenize)


def _read_stream(
    stream: BinaryIO, origin: str, name: str, detokenize: Detokenize
) -> Iterator[RawAbstract | Skip]:
    if name.endswith(".gz"):
        with gzip.open(stream) as inner:
            yield from _guard_compressed(_read_stream(inner, origin, name[:-3], detokenize), origin)
        return
    if _is_xml(stream, name):
        yield from parse_pubmed_xml(stream, origin)
    elif name.endswith(".json") or (not name.endswith(".txt") and looks_like_pubmedqa(_head(stream))):
        yield from parse_pubmedqa(stream, origin)
    else:
        yield from parse_rct_lines(decoded_lines(stream, origin), origin, detokenize)


def _guard_compressed(items: Iterator, origin: str) -> Iterator:
    """Re-raise decompression failures (which surface mid-read) as format errors naming the file."""
    try:
        yield from items
    except (gzip.BadGzipFile, EOFError, zlib.error, lzma.LZMAError) as error:
        raise InputFormatError(origin, f"corrupt or truncated compressed data ({error})") from error


def _is_xml(stream: BinaryIO, name: str) -> bool:
    if name.endswith(".xml"):
        return True
    if name.endswith(".txt"):
        return False
    return _head(stream).lstrip().startswith(b"<")


def _head(stream: BinaryIO) -> bytes:
    return stream.peek(256) if hasattr(stream, "peek") else b""


def _choose_member(names: list[str], wanted: str | None, archive: str) -> str:
    files = [n for n in names if not n.endswith("/") and not n.startswith("__MACOSX/")]
    if wanted is not None:
        for candidate in files:
            base = PurePosixPath(candidate).name
            if wanted in (candidate, base) or base in (f"{wanted}.txt", f"{wanted}.xml"):
                return candidate
        raise InputFormatError(archive, f"has no member {wanted!r}; members: {', '.join(files) or 'none'}")
    if len(files) == 1:
        return files[0]
    raise InputFormatError(
        archive,
        f"holds {len(files)} files ({', '.join(files[:10])}); choose one with ingest.split",
    )


def _read_zip(
    path: Path, member: str | None, detokenize: Detokenize, excluded_ids: tuple[str, ...] = ()
) -> Iterator[RawAbstract | Skip]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as error:
        raise InputFormatError(str(path), f"not a valid zip archive ({error})") from error
    with archive:
        if evidence_inference.zip_members(archive, member):
            yield from evidence_inference.read_zip(path, archive, member, excluded_ids)
            return
        chosen = _choose_member(archive.namelist(), member, str(path))
        origin = f"{path}!{chosen}"
        try:
            with archive.open(chosen) as stream:
                yield from _guard_compressed(_read_stream(stream, origin, chosen.lower(), detokenize), origin)
        except zipfile.BadZipFile as error:
            raise InputFormatError(origin, f"corrupt zip member ({error})") from error


def _read_7z(path: Path, member: str | None, detokenize: Detokenize) -> Iterator[RawAbstract | Skip]:
    import py7zr
    from py7zr.exceptions import ArchiveError

    failures = (py7zr.Bad7zFile, ArchiveError, lzma.LZMAError, EOFError, OSError, KeyError)
    try:
        with py7zr.SevenZipFile(path, mode="r") as archive:
            chosen = _choose_member(archive.getnames(), member, str(path))
    except failures as error:
        raise InputFormatError(str(path), f"not a valid 7z archive ({error})") from error
    origin = f"{path}!{chosen}"
    # 7z members are not streamable; extract the one we need to a temporary folder.
    with tempfile.TemporaryDirectory(prefix="scicon-7z-") as folder:
        try:
            with py7zr.SevenZipFile(path, mode="r") as archive:
                archive.extract(path=folder, targets=[chosen])
        except failures as error:
            raise InputFormatError(origin, f"cannot extract from 7z archive ({error})") from error
        extracted = Path(folder) / chosen
        if not extracted.is_file():
            raise InputFormatError(origin, "7z archive did not yield the member's data")
        with open(extracted, "rb") as stream:
            yield from _read_stream(stream, origin, chosen.lower(), detokenize)
