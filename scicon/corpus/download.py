"""Checksum-verified, cached downloads of corpus files.

A file is streamed to a temporary name beside its cache entry while its SHA-256
(and MD5, which PubMed's FTP publishes) is computed, checked against the pinned
value, and only then moved into place. A JSON sidecar records the URL and digest,
so later runs reuse the file after re-hashing it. Without a pinned digest, the
first download's digest is recorded and every later use must match it
(trust on first use); the digest is reported so it can be pinned in params.yaml.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlparse

import httpx
from tqdm import tqdm

from scicon.errors import ChecksumMismatchError, DownloadError
from scicon.io import hash_file, write_json

log = logging.getLogger(__name__)

_CHUNK = 1 << 20
_RETRY_STATUS = {408, 429, 500, 502, 503, 504}


@dataclass(frozen=True)
class FetchedFile:
    path: Path
    url: str
    sha256: str
    pinned: bool


def cache_entry(url: str, cache_dir: Path) -> Path:
    name = Path(urlparse(url).path).name or "download"
    key = hashlib.sha256(url.encode()).hexdigest()[:16]
    return cache_dir / "downloads" / f"{key}-{name}"


def fetch(
    url: str,
    cache_dir: Path,
    *,
    sha256: str | None = None,
    md5: str | None = None,
    timeout: float = 60.0,
    retries: int = 3,
    offline_hint: str | None = None,
) -> FetchedFile:
    """Return a local, verified copy of ``url``, downloading it if the cache lacks it; a download
    that fails ends with ``offline_hint`` (what to do without a network), when given."""
    target = cache_entry(url, cache_dir)
    sidecar = target.with_name(target.name + ".json")
    cached = _verified_cache(target, sidecar, sha256)
    if cached is not None:
        return FetchedFile(target, url, cached, pinned=sha256 is not None)

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp_fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(tmp_fd)
    try:
        try:
            got_sha256, got_md5, size = _download(url, Path(tmp_name), timeout, retries)
        except DownloadError as error:
            if offline_hint is None:
                raise
            raise DownloadError(f"{error}. {offline_hint}") from error
        for algorithm, expected, got in (("sha256", sha256, got_sha256), ("md5", md5, got_md5)):
            if expected is not None and expected.lower() != got:
                raise ChecksumMismatchError(
                    f"{url}: {algorithm} mismatch: expected {expected.lower()}, got {got} "
                    f"({size} bytes downloaded and discarded)"
                )
        os.replace(tmp_name, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
    _write_record(target, url, got_sha256, got_md5)
    if sha256 is None:
        log.warning(
            "%s has no pinned sha256; recorded %s on first download (pin it with ingest.sha256)",
            url,
            got_sha256,
        )
    return FetchedFile(target, url, got_sha256, pinned=sha256 is not None)


def place(url: str, local_file: Path, cache_dir: Path, *, sha256: str | None = None) -> FetchedFile:
    """Put ``local_file`` into the cache as the download of ``url``: the copy a machine without a
    network was given. It must match the pinned ``sha256``; its sidecar records what a download
    would have (the URL, the digests, the size) and where the copy came from, so that every later
    use of ``url`` reads it as the download it stands for."""
    if not local_file.is_file():
        raise DownloadError(f"{local_file}: no such file to place as the download of {url}")
    got_sha256, got_md5 = hash_file(local_file, "sha256", "md5")
    if sha256 is not None and sha256.lower() != got_sha256:
        raise ChecksumMismatchError(
            f"{local_file}: sha256 {got_sha256}, but {url} is pinned at {sha256.lower()}: "
            "not the file this source downloads"
        )
    target = cache_entry(url, cache_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp_fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(tmp_fd)
    try:
        with open(local_file, "rb") as source, open(tmp_name, "wb") as copy:
            while block := source.read(_CHUNK):
                copy.write(block)
        os.replace(tmp_name, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
    _write_record(target, url, got_sha256, got_md5, placed_from=str(local_file))
    log.info("placed %s as the download of %s (sha256 %s)", local_file, url, got_sha256)
    return FetchedFile(target, url, got_sha256, pinned=sha256 is not None)


def _write_record(target: Path, url: str, sha256: str, md5: str, **provenance: str) -> None:
    """The sidecar a cache entry is trusted by: what was fetched, its digests and size, and when."""
    record = {
        "url": url,
        "sha256": sha256,
        "md5": md5,
        "bytes": target.stat().st_size,
        "fetched_at": datetime.now(UTC).isoformat(timespec="seconds"),
        **provenance,
    }
    write_json(target.with_name(target.name + ".json"), record)


def _verified_cache(target: Path, sidecar: Path, expected: str | None) -> str | None:
    """The cached file's sha256 if it is intact and matches ``expected``; else None."""
    if not (target.is_file() and sidecar.is_file()):
        return None
    try:
        recorded = json.loads(sidecar.read_text(encoding="utf-8"))["sha256"]
    except (ValueError, KeyError):
        return None
    if expected is not None and recorded != expected.lower():
        log.info("cached %s has sha256 %s, not the pinned %s: downloading again", target, recorded, expected)
        return None
    (actual,) = hash_file(target, "sha256")
    if actual != recorded:
        log.warning(
            "cached %s is corrupt (sha256 %s, recorded %s): downloading again", target, actual, recorded
        )
        return None
    return actual


def _download(url: str, destination: Path, timeout: float, retries: int) -> tuple[str, str, int]:
    delay = 1.0
    for attempt in range(1, retries + 2):
        try:
            return _stream_to(url, destination, timeout)
        except (httpx.TransportError, _RetryableStatus) as error:
            if attempt > retries:
                raise DownloadError(f"{url}: download failed after {attempt} attempts: {error}") from error
            log.warning("%s: attempt %d failed (%s); retrying in %.0fs", url, attempt, error, delay)
            time.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")


class _RetryableStatus(Exception):
    pass


def _stream_to(url: str, destination: Path, timeout: float) -> tuple[str, str, int]:
    sha256, md5 = hashlib.sha256(), hashlib.md5(usedforsecurity=False)
    size = 0
    with httpx.stream("GET", url, follow_redirects=True, timeout=timeout) as response:
        if response.status_code in _RETRY_STATUS:
            raise _RetryableStatus(f"HTTP {response.status_code}")
        if response.status_code >= 400:
            raise DownloadError(f"{url}: HTTP {response.status_code} {response.reason_phrase}")
        total = int(response.headers.get("content-length") or 0) or None
        with (
            open(destination, "wb") as handle,
            tqdm(
                total=total, unit="B", unit_scale=True, desc=Path(destination).name[:30], leave=False
            ) as progress,
        ):
            for chunk in response.iter_bytes(_CHUNK):
                handle.write(chunk)
                sha256.update(chunk)
                md5.update(chunk)
                size += len(chunk)
                progress.update(len(chunk))
    return sha256.hexdigest(), md5.hexdigest(), size
