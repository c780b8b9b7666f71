"""llama-cpp-python's own OpenAI-compatible server (``python -m llama_cpp.server``) as a child process.

For a model served on this machine to the ``openai`` backend, as a GPU server would be: the
tests and ``perf.backbone_scaleout`` run the search through it over HTTP. Needs the
``llama-cpp-python[server]`` extras (requirements-dev.txt pins them).
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from scicon.backbones.base import BackboneError
from scicon.models import resolve_model
from scicon.threads import thread_budget

STARTUP_SECONDS = 120


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def llama_cpp_server(
    model: str,
    *,
    log_path: Path,
    served_name: str,
    context_length: int = 2048,
    threads: int | None = None,
) -> Iterator[str]:
    """The ``/v1`` URL of a server of ``model`` (an ``embedded:`` name or a GGUF path) on
    127.0.0.1, until the block ends; its output goes to ``log_path``. ``threads`` null: the
    process's budget (:func:`scicon.threads.thread_budget`)."""
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", resolve_model(model), "--host", "127.0.0.1",
        "--port", str(port), "--n_ctx", str(context_length), "--logits_all", "true",
        "--model_alias", served_name, "--verbose", "false",
    ]  # fmt: skip
    threads = threads or thread_budget()  # never llama.cpp's own count, which the host's CPUs set
    command += ["--n_threads", str(threads), "--n_threads_batch", str(threads)]
    base_url = f"http://127.0.0.1:{port}/v1"
    # a file, not a pipe: an unread pipe fills up and blocks the server
    with open(log_path, "wb") as log_file:
        server = subprocess.Popen(command, stdout=log_file, stderr=subprocess.STDOUT)
        try:
            _wait_until_serving(server, base_url, log_path)
            yield base_url
        finally:
            server.terminate()
            server.wait(timeout=30)


def _wait_until_serving(server: subprocess.Popen, base_url: str, log_path: Path) -> None:
    if not serving(server, base_url, STARTUP_SECONDS, poll_seconds=0.5):
        tail = log_path.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise BackboneError(f"llama_cpp.server did not start (its log, {log_path}): {tail}")


def serving(process: subprocess.Popen, base_url: str, seconds: float, poll_seconds: float) -> bool:
    """Whether the OpenAI-compatible server ``process`` answers ``/models`` within ``seconds``
    (False as soon as the process has exited)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                return True
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(poll_seconds)
