from __future__ import annotations

import contextlib
import functools
import http.server
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


@pytest.fixture
def project(tmp_path) -> tuple[Path, dict]:
    """A fresh git + DVC checkout of the project's files (without outputs) and its environment."""
    env = project_environment(tmp_path / "cache")
    return copy_project(tmp_path / "project", env), env


@pytest.fixture(scope="session")
def released(tmp_path_factory):
    """A reproduced project on the fast fixture settings, committed and pushed to a local DVC
    remote (the release); tests copy it before changing anything."""
    root = tmp_path_factory.mktemp("release")
    env = project_environment(root / "cache")
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
