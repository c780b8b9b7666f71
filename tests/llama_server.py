"""llama-cpp-python's own OpenAI-compatible server on 127.0.0.1, running the embedded SmolLM2."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from scicon.models import resolve_model

SERVED_NAME = "smollm2"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def llama_cpp_server(log_folder: Path, n_ctx: int = 2048) -> Iterator[tuple[str, str]]:
    """The server's ``/v1`` URL and the model file it serves, until the block ends."""
    port = free_port()
    model = resolve_model("embedded:smollm2-135m-instruct")
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1",
        "--port", str(port), "--n_ctx", str(n_ctx), "--logits_all", "true", "--model_alias", SERVED_NAME,
        "--verbose", "false",
    ]  # fmt: skip
    # a file, not a pipe: an unread pipe fills up and blocks the server
    log_path = log_folder / "server.log"
    with open(log_path, "wb") as log_file:
        server = subprocess.Popen(command, stdout=log_file, stderr=subprocess.STDOUT)
        base_url = f"http://127.0.0.1:{port}/v1"
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"llama_cpp.server did not start: {log_path.read_text()[-2000:]}")
                time.sleep(0.5)
            yield base_url, model
        finally:
            server.terminate()
            server.wait(timeout=30)
