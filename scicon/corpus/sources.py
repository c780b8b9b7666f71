"""Resolve ``ingest.source`` to a local file: a path, an http(s) URL, or a named source.

Named sources point at the official releases:

* ``pubmed-20k-rct`` / ``pubmed-200k-rct`` (and their ``-numbers-at`` variants, in
  which digits were replaced by ``@``): splits ``train``, ``dev``, ``test`` from the
  PubMed 200k RCT repository (Dernoncourt & Lee, 2017). The 200k train split ships
  as ``train.7z`` (``train.zip`` in the ``@`` variant).
* ``pubmedqa-l``: PubMedQA's 1,000 expert-labelled abstracts (split ``labelled``,
  ``data/ori_pqal.json`` of the PubMedQA repository, MIT licence), read as structured
  abstracts by :mod:`scicon.corpus.pubmedqa`: the real corpus of the ``real-abstracts``
  recipe.
* ``evidence-inference``: the Evidence Inference corpus's abstracts of randomized controlled
  trials (``annotations/abstracts/PMC<id>.abst`` of the ``jayded/evidence-inference`` repository
  at a pinned commit, MIT licence), read by :mod:`scicon.corpus.evidence_inference`. Split
  ``development`` (the default) leaves out the articles of the upstream test splits, which are
  kept for blind evaluation; ``all`` reads every article.
* ``pubmed-baseline``: one file of the annual MEDLINE/PubMed baseline, named by its
  stem as the split (e.g. ``pubmed25n0001``); verified against the MD5 that NLM
  publishes beside every file.

A named source with one split, or a default one, needs no ``ingest.split``.

The PubMed RCT and Evidence Inference files carry no published checksum, and none could be
computed where this project was built (no access to the host), so their SHA-256 is not pinned
here: the first download's digest is recorded and enforced afterwards, and ``ingest.sha256`` pins
it explicitly. PubMedQA's file is pinned at a commit and digest (the project's copy of it, byte
for byte). Without a network, ``python -m scicon.corpus place <source> <file>`` puts a copy of a
named source's file into the download cache, checked against the pinned digest, and the source
then reads it as its download.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import httpx

from scicon.corpus.download import fetch, place
from scicon.errors import ChecksumMismatchError, DownloadError, InputNotFoundError, ParamsError
from scicon.io import hash_file, hash_folder

RCT_REPOSITORY = "https://raw.githubusercontent.com/Franck-Dernoncourt/pubmed-rct/master"
# PubMedQA at the commit whose data/ori_pqal.json the project's runs read (its digest is pinned)
PUBMEDQA_COMMIT = "1cbae8e92f72f20c8d3747cbb3bf5bc53554d997"
PUBMEDQA_REPOSITORY = f"https://raw.githubusercontent.com/pubmedqa/pubmedqa/{PUBMEDQA_COMMIT}"
PUBMED_BASELINE = "https://ftp.ncbi.nlm.nih.gov/pubmed/baseline"
# the commit of the project's copy (../shared/data/evidence_inference/README.md)
EVIDENCE_INFERENCE_COMMIT = "b9831b6c59b52ac2d277f757d413ececf0949a8d"
EVIDENCE_INFERENCE_ARCHIVE = (
    f"https://github.com/jayded/evidence-inference/archive/{EVIDENCE_INFERENCE_COMMIT}.zip"
)
# the upstream test splits' article ids, inside the archive (kept back for blind evaluation)
EVIDENCE_INFERENCE_TEST_IDS = (
    "annotations/splits/test_article_ids.txt",
    "annotations/splits/ev2_test_article_ids.txt",
)
_BASELINE_STEM = re.compile(r"^pubmed\d{2}n\d{4}$")


@dataclass(frozen=True)
class RemoteFile:
    url: str
    member: str | None = None
    sha256: str | None = None
    # archive members listing article ids the source leaves out
    excluded_ids: tuple[str, ...] = ()


def _rct_release(folder: str, train_suffix: str) -> dict[str, RemoteFile]:
    base = f"{RCT_REPOSITORY}/{folder}"
    train_member = None if train_suffix == ".txt" else "train.txt"
    return {
        "train": RemoteFile(f"{base}/train{train_suffix}", member=train_member),
        "dev": RemoteFile(f"{base}/dev.txt"),
        "test": RemoteFile(f"{base}/test.txt"),
    }


NAMED_SOURCES: dict[str, dict[str, RemoteFile]] = {
    "pubmed-20k-rct": _rct_release("PubMed_20k_RCT", ".txt"),
    "pubmed-20k-rct-numbers-at": _rct_release("PubMed_20k_RCT_numbers_replaced_with_at_sign", ".txt"),
    "pubmed-200k-rct": _rct_release("PubMed_200k_RCT", ".7z"),
    "pubmed-200k-rct-numbers-at": _rct_release("PubMed_200k_RCT_numbers_replaced_with_at_sign", ".zip"),
    "pubmedqa-l": {
        "labelled": RemoteFile(
            f"{PUBMEDQA_REPOSITORY}/data/ori_pqal.json",
            sha256="8b3276be8942ebbd77f3ddcda12c1749bf0e490045a736fd8438ee40cf37a41d",
        )
    },
    "evidence-inference": {
        "development": RemoteFile(
            EVIDENCE_INFERENCE_ARCHIVE,
            member="annotations/abstracts",
            excluded_ids=EVIDENCE_INFERENCE_TEST_IDS,
        ),
        "all": RemoteFile(EVIDENCE_INFERENCE_ARCHIVE, member="annotations/abstracts"),
    },
}
# the split a named source reads when ingest.split is null
DEFAULT_SPLITS = {"pubmedqa-l": "labelled", "evidence-inference": "development"}
BASELINE_SOURCE = "pubmed-baseline"


@dataclass(frozen=True)
class ResolvedSource:
    path: Path
    label: str
    member: str | None
    sha256: str
    pinned: bool
    excluded_ids: tuple[str, ...] = ()


def resolve_source(source: str, *, split: str | None, sha256: str | None, cache_dir: Path) -> ResolvedSource:
    if source in NAMED_SOURCES:
        return _named(source, split, sha256, cache_dir)
    if source == BASELINE_SOURCE:
        return _baseline(split, sha256, cache_dir)
    if source.startswith(("http://", "https://")):
        fetched = fetch(source, cache_dir, sha256=sha256)
        return ResolvedSource(fetched.path, source, split, fetched.sha256, fetched.pinned)
    return _local(source, split, sha256)


def _named(source: str, split: str | None, sha256: str | None, cache_dir: Path) -> ResolvedSource:
    files = NAMED_SOURCES[source]
    split = split if split is not None else DEFAULT_SPLITS.get(source)
    if split not in files:
        raise ParamsError(
            f"ingest.split must be one of {', '.join(files)} for source {source!r} (got {split!r})"
        )
    remote = files[split]
    name = Path(urlparse(remote.url).path).name
    offline_hint = (
        f"Without a network, fetch {remote.url} elsewhere and place the copy as this source's download: "
        f"python -m scicon.corpus place {source} /abs/path/{name}"
        + (f" --split {split}" if len(files) > 1 else "")
        + " (checked against the pinned digest), or read it as a local file: "
        f"-S ingest.source=/abs/path/{name} and ingest.watched the same path (or a folder holding every "
        "local source; docs/ingest.md, 'Local copies, offline')"
    )
    fetched = fetch(remote.url, cache_dir, sha256=sha256 or remote.sha256, offline_hint=offline_hint)
    return ResolvedSource(
        fetched.path, f"{source}/{split}", remote.member, fetched.sha256, fetched.pinned, remote.excluded_ids
    )


def place_named(source: str, local_file: Path, *, split: str | None, cache_dir: Path) -> Path:
    """Place ``local_file`` in the cache as the download of a named source's split (offline use)."""
    if source not in NAMED_SOURCES:
        raise ParamsError(f"unknown named source {source!r} (known: {', '.join(NAMED_SOURCES)})")
    files = NAMED_SOURCES[source]
    split = split if split is not None else DEFAULT_SPLITS.get(source)
    if split not in files:
        raise ParamsError(f"--split must be one of {', '.join(files)} for source {source!r} (got {split!r})")
    remote = files[split]
    return place(remote.url, local_file, cache_dir, sha256=remote.sha256).path


def _baseline(split: str | None, sha256: str | None, cache_dir: Path) -> ResolvedSource:
    if split is None or not _BASELINE_STEM.match(split):
        raise ParamsError(
            f"ingest.split must name a baseline file such as 'pubmed25n0001' for source "
            f"{BASELINE_SOURCE!r} (got {split!r})"
        )
    url = f"{PUBMED_BASELINE}/{split}.xml.gz"
    md5 = _published_md5(url)
    fetched = fetch(url, cache_dir, sha256=sha256, md5=md5)
    return ResolvedSource(fetched.path, f"{BASELINE_SOURCE}/{split}", None, fetched.sha256, True)


def _published_md5(url: str) -> str:
    """NLM's ``<file>.md5`` holds a line like ``MD5(pubmed25n0001.xml.gz)= <hex>``."""
    try:
        response = httpx.get(url + ".md5", follow_redirects=True, timeout=60)
        response.raise_for_status()
    except httpx.HTTPError as error:
        raise DownloadError(f"{url}.md5: cannot fetch the published checksum: {error}") from error
    match = re.search(r"\b([0-9a-fA-F]{32})\b", response.text)
    if not match:
        raise DownloadError(f"{url}.md5: no MD5 digest in {response.text[:80]!r}")
    return match.group(1).lower()


def _local(source: str, member: str | None, sha256: str | None) -> ResolvedSource:
    path = Path(source).expanduser()
    if not path.exists():
        known = ", ".join([*NAMED_SOURCES, BASELINE_SOURCE])
        raise InputNotFoundError(
            f"ingest.source: no such file {source!r} (it is not a URL nor a named source: {known})"
        )
    if member is not None and path.is_file() and not path.name.lower().endswith((".zip", ".7z")):
        raise ParamsError(
            f"ingest.split is {member!r}, but {source} is a plain file, which has no member or split: "
            "add -S ingest.split=null (a profile made for a named source sets a split)"
        )
    digest = hash_folder(path) if path.is_dir() else hash_file(path, "sha256")[0]
    if sha256 is not None and digest != sha256.lower():
        raise ChecksumMismatchError(f"{source}: sha256 mismatch: expected {sha256}, got {digest}")
    return ResolvedSource(path, source, member, digest, sha256 is not None)
