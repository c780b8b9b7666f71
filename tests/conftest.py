from __future__ import annotations

import contextlib
import functools
import http.server
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
# The test files that use the `released` fixture project: a parallel run sends them to one
# worker, which builds the project once (the other workers never need it).
RELEASE_FILES = ("tests/test_dvc_workflows.py", "tests/test_kill_resume.py")


def in_release_files(nodeid: str) -> bool:
    return nodeid.split("::")[0] in RELEASE_FILES


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
    """Every test to the next free worker, slowest first, except the release files' tests,
    which go together to one worker (xdist's own `--dist loadgroup` cannot group under
    pytest 9: it renames a node through an attribute pytest 9 no longer reads)."""
    from xdist.scheduler import LoadScopeScheduling

    class ReleaseOnOneWorker(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "release" if in_release_files(nodeid) else nodeid

    return ReleaseOnOneWorker(config, log)


def pytest_collection_modifyitems(config, items) -> None:
    """The slow tests first, so that the quick ones even out the workers' loads at the end."""
    strays = [
        item.nodeid for item in items if "released" in item.fixturenames and not in_release_files(item.nodeid)
    ]
    if strays:
        raise pytest.UsageError(
            f"{', '.join(strays)} use the released project: move them into one of {', '.join(RELEASE_FILES)} "
            "(tests/conftest.py), whose tests share one worker and one build of it"
        )
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


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
    remote (the release); tests copy it before changing anything."""
    root = tmp_path_factory.mktemp("release")
    env = project_environment(scicon_cache)
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
    return project, env, remote, file_digests(project)


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
