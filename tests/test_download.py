"""Downloads against a real HTTP server on 127.0.0.1: checksums, caching, retries, errors."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading

import pytest

from scicon.corpus import download, sources
from scicon.corpus.download import cache_entry, fetch
from scicon.corpus.sources import resolve_source
from scicon.errors import ChecksumMismatchError, DownloadError, InputNotFoundError, ParamsError

BODY = b"###1\nRESULTS\tServed over HTTP.\nCONCLUSIONS\tIt arrived intact.\n"
SHA256 = hashlib.sha256(BODY).hexdigest()


@pytest.fixture(autouse=True)
def no_retry_sleep(monkeypatch):
    monkeypatch.setattr(download.time, "sleep", lambda seconds: None)


def test_correct_checksum_downloads_once_then_uses_cache(file_server, tmp_path):
    folder, base = file_server
    (folder / "train.txt").write_bytes(BODY)
    first = fetch(f"{base}/train.txt", tmp_path, sha256=SHA256)
    assert first.path.read_bytes() == BODY
    assert first.sha256 == SHA256 and first.pinned

    (folder / "train.txt").unlink()  # a second fetch must not need the server
    second = fetch(f"{base}/train.txt", tmp_path, sha256=SHA256)
    assert second.path == first.path and second.sha256 == SHA256
    sidecar = json.loads(first.path.with_name(first.path.name + ".json").read_text())
    assert sidecar["url"] == f"{base}/train.txt" and sidecar["bytes"] == len(BODY)


def test_wrong_checksum_is_rejected_and_nothing_is_cached(file_server, tmp_path):
    folder, base = file_server
    (folder / "train.txt").write_bytes(BODY)
    wrong = "0" * 64
    with pytest.raises(ChecksumMismatchError, match=f"sha256 mismatch: expected {wrong}, got {SHA256}"):
        fetch(f"{base}/train.txt", tmp_path, sha256=wrong)
    entry = cache_entry(f"{base}/train.txt", tmp_path)
    assert list(entry.parent.iterdir()) == []


def test_wrong_md5_is_rejected(file_server, tmp_path):
    folder, base = file_server
    (folder / "f.xml.gz").write_bytes(BODY)
    with pytest.raises(ChecksumMismatchError, match="md5 mismatch"):
        fetch(f"{base}/f.xml.gz", tmp_path, md5="f" * 32)


def test_unpinned_download_is_trusted_on_first_use_then_enforced(file_server, tmp_path):
    folder, base = file_server
    (folder / "train.txt").write_bytes(BODY)
    first = fetch(f"{base}/train.txt", tmp_path)
    assert first.sha256 == SHA256 and not first.pinned
    # the cached copy is corrupted on disk: it is detected and fetched again
    first.path.write_bytes(b"tampered")
    again = fetch(f"{base}/train.txt", tmp_path)
    assert again.path.read_bytes() == BODY


def test_pinning_a_different_checksum_refetches(file_server, tmp_path):
    folder, base = file_server
    (folder / "train.txt").write_bytes(BODY)
    fetch(f"{base}/train.txt", tmp_path)
    new_body = BODY + b"RESULTS\tA corrected release.\n"
    (folder / "train.txt").write_bytes(new_body)
    updated = fetch(f"{base}/train.txt", tmp_path, sha256=hashlib.sha256(new_body).hexdigest())
    assert updated.path.read_bytes() == new_body


def test_http_404_fails_without_retrying(file_server, tmp_path):
    _, base = file_server
    with pytest.raises(DownloadError, match="HTTP 404"):
        fetch(f"{base}/missing.txt", tmp_path)


def test_server_errors_are_retried_then_succeed(tmp_path):
    calls = []

    class Flaky(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            calls.append(self.path)
            if len(calls) < 3:
                self.send_error(503)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(BODY)))
            self.end_headers()
            self.wfile.write(BODY)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/train.txt"
        fetched = fetch(url, tmp_path, sha256=SHA256, retries=3)
        assert fetched.path.read_bytes() == BODY
        assert len(calls) == 3
        calls.clear()
        with pytest.raises(DownloadError, match="after 2 attempts"):
            fetch(url.replace("train", "other"), tmp_path, retries=1)
    finally:
        server.shutdown()
        server.server_close()


def test_unreachable_host_is_a_download_error(tmp_path):
    with pytest.raises(DownloadError, match="download failed"):
        fetch("http://127.0.0.1:9/nothing.txt", tmp_path, retries=0, timeout=2)


def test_an_unreachable_named_source_says_how_to_name_a_local_copy(monkeypatch, tmp_path):
    unreachable = {"labelled": sources.RemoteFile("http://127.0.0.1:9/data/ori_pqal.json")}
    monkeypatch.setitem(sources.NAMED_SOURCES, "pubmedqa-l", unreachable)
    with pytest.raises(DownloadError, match="download failed") as failed:
        resolve_source("pubmedqa-l", split=None, sha256=None, cache_dir=tmp_path)
    said = str(failed.value)
    assert "-S ingest.source=/abs/path/ori_pqal.json" in said and "ingest.watched" in said
    assert "python -m scicon.corpus place pubmedqa-l /abs/path/ori_pqal.json" in said
    assert "docs/ingest.md" in said


def test_a_placed_copy_is_read_as_the_named_sources_download_without_a_network(monkeypatch, tmp_path):
    from scicon.corpus.__main__ import main, parser

    copy = tmp_path / "ori_pqal.json"
    copy.write_bytes(BODY)
    # an unreachable address: the source can only be read from the placed copy
    remote = sources.RemoteFile("http://127.0.0.1:9/data/ori_pqal.json", sha256=SHA256)
    monkeypatch.setitem(sources.NAMED_SOURCES, "pubmedqa-l", {"labelled": remote})
    monkeypatch.setenv("SCICON_CACHE_DIR", str(tmp_path / "cache"))
    main(parser().parse_args(["place", "pubmedqa-l", str(copy)]))
    resolved = resolve_source("pubmedqa-l", split=None, sha256=None, cache_dir=tmp_path / "cache")
    assert resolved.path.read_bytes() == BODY and resolved.sha256 == SHA256 and resolved.pinned
    record = json.loads(resolved.path.with_name(resolved.path.name + ".json").read_text())
    assert record["placed_from"] == str(copy) and record["url"] == remote.url

    other = tmp_path / "edited.json"
    other.write_bytes(BODY + b" ")
    with pytest.raises(ChecksumMismatchError, match="not the file this source downloads"):
        main(parser().parse_args(["place", "pubmedqa-l", str(other)]))
    with pytest.raises(ParamsError, match="--split must be one of train, dev, test"):
        sources.place_named("pubmed-20k-rct", copy, split="validation", cache_dir=tmp_path)


def test_pubmedqa_is_pinned_at_the_commit_and_digest_of_its_upstream_file():
    (remote,) = sources.NAMED_SOURCES["pubmedqa-l"].values()
    assert sources.PUBMEDQA_COMMIT in remote.url and remote.url.endswith("/data/ori_pqal.json")
    assert remote.sha256 == "8b3276be8942ebbd77f3ddcda12c1749bf0e490045a736fd8438ee40cf37a41d"


def test_named_source_needs_a_known_split(tmp_path):
    with pytest.raises(ParamsError, match="ingest.split must be one of train, dev, test"):
        resolve_source("pubmed-20k-rct", split="validation", sha256=None, cache_dir=tmp_path)
    with pytest.raises(ParamsError, match="pubmed25n0001"):
        resolve_source("pubmed-baseline", split="2025", sha256=None, cache_dir=tmp_path)


def test_named_sources_resolve_to_the_official_release_files(monkeypatch, tmp_path):
    requested = []

    def fake_fetch(url, cache_dir, *, sha256=None, md5=None, **_):
        requested.append(url)
        path = tmp_path / "x"
        path.write_bytes(BODY)
        return download.FetchedFile(path, url, SHA256, pinned=sha256 is not None)

    monkeypatch.setattr("scicon.corpus.sources.fetch", fake_fetch)
    train = resolve_source("pubmed-200k-rct", split="train", sha256=None, cache_dir=tmp_path)
    resolve_source("pubmed-20k-rct", split="dev", sha256=None, cache_dir=tmp_path)
    assert requested == [
        "https://raw.githubusercontent.com/Franck-Dernoncourt/pubmed-rct/master/PubMed_200k_RCT/train.7z",
        "https://raw.githubusercontent.com/Franck-Dernoncourt/pubmed-rct/master/PubMed_20k_RCT/dev.txt",
    ]
    assert train.member == "train.txt" and train.label == "pubmed-200k-rct/train"


def test_local_source_checksum_and_missing_file(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_bytes(BODY)
    assert resolve_source(str(path), split=None, sha256=SHA256, cache_dir=tmp_path).pinned
    with pytest.raises(ChecksumMismatchError, match="corpus.txt: sha256 mismatch"):
        resolve_source(str(path), split=None, sha256="1" * 64, cache_dir=tmp_path)
    with pytest.raises(InputNotFoundError, match="no such file 'nope.txt'.*pubmed-20k-rct"):
        resolve_source("nope.txt", split=None, sha256=None, cache_dir=tmp_path)


def test_a_profiles_split_with_a_plain_local_file_says_to_drop_the_split(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("###1\nRESULTS\tA result.\n")
    with pytest.raises(ParamsError, match="add -S ingest.split=null"):
        resolve_source(str(path), split="train", sha256=None, cache_dir=tmp_path)


def test_baseline_file_is_verified_against_the_published_md5(file_server, tmp_path, monkeypatch, fixtures):
    import gzip

    folder, base = file_server
    monkeypatch.setattr("scicon.corpus.sources.PUBMED_BASELINE", base)
    data = gzip.compress((fixtures / "pubmed_structured.xml").read_bytes())
    (folder / "pubmed25n0001.xml.gz").write_bytes(data)
    digest = hashlib.md5(data).hexdigest()
    (folder / "pubmed25n0001.xml.gz.md5").write_text(f"MD5(pubmed25n0001.xml.gz)= {digest}\n")
    resolved = resolve_source("pubmed-baseline", split="pubmed25n0001", sha256=None, cache_dir=tmp_path / "a")
    assert resolved.path.read_bytes() == data and resolved.pinned
    assert resolved.label == "pubmed-baseline/pubmed25n0001"

    (folder / "pubmed25n0001.xml.gz.md5").write_text(f"MD5(pubmed25n0001.xml.gz)= {'0' * 32}\n")
    with pytest.raises(ChecksumMismatchError, match="md5 mismatch"):
        resolve_source("pubmed-baseline", split="pubmed25n0001", sha256=None, cache_dir=tmp_path / "b")
    (folder / "pubmed25n0001.xml.gz.md5").write_text("no digest here\n")
    with pytest.raises(DownloadError, match="no MD5 digest"):
        resolve_source("pubmed-baseline", split="pubmed25n0001", sha256=None, cache_dir=tmp_path / "c")
