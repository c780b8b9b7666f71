from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import threading
from pathlib import Path

import pytest

from tests.dvc_project import (
    FAST_PIPELINE_PARAMS,
    commit_all,
    copy_project,
    dvc,
    file_digests,
    project_environment,
    update_params,
)

FIXTURES = Path(__file__).parent / "fixtures"
REPO_ROOT = Path(__file__).resolve().parent.parent
# The `released` project is built once per run, by the first worker that asks for it, under a
# lock in the run's shared folder; a worker that asks while it is being built waits for it. The
# release group goes to one worker, as the first scope handed out: the tests that run DVC in the
# built project itself (no two DVC commands at once there) and the pulls from its remote, which
# need seconds; the first of them builds it. Every other test that uses it copies it, and is
# queued behind the slow tests that need no release, so that the worker that takes it finds the
# build done.
RELEASE_GROUP = tuple(
    f"tests/test_dvc_workflows.py::{name}"
    for name in (
        "test_the_release_holds_the_dataset_card_adapter_and_metrics",
        "test_dvc_import_brings_the_released_dataset_into_another_project",
        "test_pull_from_a_local_remote_restores_scicon_byte_for_byte",
        "test_pull_through_an_http_remote_restores_scicon_byte_for_byte",
    )
)


# The suite runs on parallel workers (pytest-xdist, `-n auto` in pyproject.toml): one per core
# the process may use (within memory), each with its share of the cores as its thread budget, so that the
# models of two workers never compete for one core (docs/development.md, "Threads").


# Memory per worker: one held 1.3 GB with torch and transformers loaded (2026-11-26), and the
# DVC stage or llama.cpp server it runs beside it needs room too.
WORKER_MEMORY_BYTES = 4 * 1024**3


def pytest_xdist_auto_num_workers(config) -> int:
    """One worker per usable core, as many as the available memory holds."""
    import psutil

    from scicon.threads import available_cores

    return max(1, min(available_cores(), psutil.virtual_memory().available // WORKER_MEMORY_BYTES))


def pytest_xdist_setupnodes(config, specs) -> None:
    """Before the workers start: their thread budget, inherited by them and every stage they run."""
    if "OMP_NUM_THREADS" not in os.environ:
        from scicon.threads import available_cores

        os.environ["OMP_NUM_THREADS"] = str(max(1, available_cores() // len(specs)))


def pytest_configure(config) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        from scicon.threads import apply_thread_budget

        apply_thread_budget(None)  # the worker's share, for models a test runs in this process


def pytest_xdist_make_scheduler(config, log):
    """Every test to the next free worker, in the order of pytest_collection_modifyitems, except
    the release group's, which go together to one worker, first (xdist's own `--dist loadgroup`
    cannot group under pytest 9: it renames a node through an attribute pytest 9 no longer reads)."""
    from xdist.scheduler import LoadScopeScheduling

    class ReleaseGroupOnOneWorker(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "release" if nodeid in RELEASE_GROUP else nodeid

    return ReleaseGroupOnOneWorker(config, log)


def pytest_collection_modifyitems(config, items) -> None:
    """The slow tests first, so that the quick ones even out the workers' loads at the end; of
    the slow ones, those that copy the released project last, behind the others, while one
    worker builds it (the release group, the largest scope, is handed out first anyway)."""

    def order(item) -> tuple[bool, bool]:
        slow = item.get_closest_marker("slow") is not None
        return (not slow, "released" in item.fixturenames and item.nodeid not in RELEASE_GROUP)

    items.sort(key=order)


@pytest.fixture(scope="session")
def scicon_cache(tmp_path_factory) -> Path:
    """One SciCon cache (model calls, fitted filter models) for every project copy of the run,
    shared by the parallel workers: its entries are keyed by their content, so a copy reads what
    another computed, as a user's second checkout on the same machine does."""
    base = tmp_path_factory.getbasetemp()
    # a worker's base folder sits in the run's own; without workers the base is the run's
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "scicon-cache"


@pytest.fixture
def project(tmp_path, scicon_cache) -> tuple[Path, dict]:
    """A fresh git + DVC checkout of the project's files (without outputs) and its environment."""
    env = project_environment(scicon_cache)
    return copy_project(tmp_path / "project", env), env


@pytest.fixture(scope="session")
def released(tmp_path_factory, scicon_cache):
    """A reproduced project on the fast fixture settings, committed and pushed to a local DVC
    remote (the release); tests copy it (copy_released) before changing anything. Built once per
    run, in the run's shared folder: the first worker to ask builds it under a lock, the others
    wait for the lock and read what it built."""
    import fcntl

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    root = shared / "release"
    built = shared / "release.json"
    failed = shared / "release.failed"
    env = project_environment(scicon_cache)
    with (shared / "release.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if failed.exists():
            pytest.fail(f"the released project failed to build in another worker:\n{failed.read_text()}")
        if not built.exists():
            try:
                digests = build_release(root, env)
            except BaseException as error:
                failed.write_text(str(error))
                raise
            built.write_text(json.dumps(digests))
    return root / "project", env, root / "remote", json.loads(built.read_text())


def build_release(root: Path, env: dict) -> dict[str, str]:
    """The released project under ``root``: the SHA-256 of the released files."""
    root.mkdir()
    project = copy_project(root / "project", env)
    # target above what the few-step teacher ever gives: no pair is skipped, so every search
    # scores candidates and a threshold experiment has pass rates to move
    update_params(project, {**FAST_PIPELINE_PARAMS, "target": 0.95})
    remote = root / "remote"
    remote.mkdir()
    dvc(project, env, "remote", "add", "--default", "release", str(remote))
    dvc(project, env, "repro")
    commit_all(project, env, "SciCon build")
    pushed = dvc(project, env, "push")
    assert "pushed" in pushed.stdout
    return file_digests(project)


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    """llama.cpp's OpenAI-compatible server with the embedded SmolLM2: (its /v1 URL, the model file)."""
    from scicon.backbones.llama_cpp_server import llama_cpp_server
    from scicon.models import resolve_model
    from tests.llama_server import EMBEDDED_MODEL, SERVED_NAME

    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    with llama_cpp_server(EMBEDDED_MODEL, log_path=log_path, served_name=SERVED_NAME) as base_url:
        yield base_url, resolve_model(EMBEDDED_MODEL)


@pytest.fixture(scope="session")
def demo_abstracts():
    """The fictional demo corpus, read once for every test that fits a model on it."""
    from scicon.corpus.readers import read_corpus
    from scicon.records.corpus import Abstract

    corpus = Path(__file__).resolve().parent.parent / "data" / "demo" / "demo_rct.txt"
    return [Abstract(pmid=a.pmid, sentences=tuple(a.sentences), origin=a.origin) for a in read_corpus(corpus)]


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    """A private SciCon cache root, so tests never touch the user's cache."""
    root = tmp_path / "scicon-cache"
    monkeypatch.setenv("SCICON_CACHE_DIR", str(root))
    return root


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def serve_folder(folder: Path):
    """A real static HTTP server on 127.0.0.1 for `folder`; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def file_server(tmp_path):
    """A real HTTP server on 127.0.0.1 serving a temporary folder; yields (folder, base URL)."""
    folder = tmp_path / "served"
    folder.mkdir()
    with serve_folder(folder) as url:
        yield folder, url
