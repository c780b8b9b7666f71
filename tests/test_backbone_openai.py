"""The OpenAI-compatible HTTP backend against real servers on 127.0.0.1.

One is llama.cpp's own OpenAI-compatible server running the embedded SmolLM2;
the others are small misbehaving servers: slow, malformed, failing, flaky.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

from scicon.backbones import BackboneError, Sampling
from scicon.backbones.base import GenerationRequest
from scicon.backbones.llama_cpp_backend import LlamaCppBackend
from scicon.backbones.openai_http import OpenAICompatibleBackend
from scicon.models import resolve_model
from scicon.prompts import CLASSIFICATION

QUESTION = CLASSIFICATION.format(
    sentence1="Velanoxet reduced major bleeding compared with warfarin.",
    sentence2="Velanoxet increased major bleeding compared with warfarin.",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    port = free_port()
    model = resolve_model("embedded:smollm2-135m-instruct")
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1",
        "--port", str(port), "--n_ctx", "1024", "--logits_all", "true", "--model_alias", "smollm2",
        "--verbose", "false",
    ]  # fmt: skip
    # a file, not a pipe: an unread pipe fills up and blocks the server
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    log_file = open(log_path, "wb")  # noqa: SIM115
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
        log_file.close()


@pytest.mark.slow
def test_scores_match_the_local_backend_on_the_same_model(llama_server):
    base_url, model = llama_server
    remote = OpenAICompatibleBackend(base_url, "smollm2", max_concurrency=2)
    local = LlamaCppBackend(model, context_length=1024)
    try:
        (over_http,) = remote.yes_no([QUESTION])
        (in_process,) = local.yes_no([QUESTION])
    finally:
        remote.close()
        local.close()
    # top-20 logprobs hold nearly all of the yes/no probability of this model
    assert over_http.p_yes == pytest.approx(in_process.p_yes, abs=0.02)
    assert 0.0 < over_http.mass <= in_process.mass + 1e-3


@pytest.mark.slow
def test_generation_over_http_is_seeded(llama_server):
    base_url, _ = llama_server
    remote = OpenAICompatibleBackend(base_url, "smollm2", max_concurrency=3)
    sampling = Sampling(temperature=0.9, max_tokens=16)
    requests = [GenerationRequest("Name a vitamin.", sampling, seed) for seed in (1, 2, 1)]
    try:
        texts = remote.generate(requests)
    finally:
        remote.close()
    assert all(isinstance(completion.text, str) and completion.text for completion in texts)
    assert all(completion.truncated for completion in texts)  # 16 tokens cut SmolLM2 off
    assert texts[0] == texts[2]


class ScriptedServer:
    """An HTTP server whose POST handler is a function of (handler, request body)."""

    def __init__(self, respond):
        outer = self
        self.headers_seen: list[dict] = []
        self.in_flight = 0
        self.peak = 0
        self._lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer._lock:
                    outer.headers_seen.append(dict(self.headers))
                    outer.in_flight += 1
                    outer.peak = max(outer.peak, outer.in_flight)
                self.counted = True
                try:
                    respond(self, body)
                finally:
                    self.answered()

            def answered(self):
                # A request stops counting before its reply is written: once the client has
                # the reply it may send the next request at once, and counting until this
                # thread got back from writing would see one request more than the client
                # ever had in flight.
                if self.counted:
                    self.counted = False
                    with outer._lock:
                        outer.in_flight -= 1

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def reply(handler, status: int, payload: bytes | dict):
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    handler.answered()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


CHAT_REPLY = {
    "choices": [
        {
            "message": {"role": "assistant", "content": "Yes"},
            "logprobs": {
                "content": [
                    {
                        "token": "Yes",
                        "logprob": -0.2,
                        "top_logprobs": [
                            {"token": "Yes", "logprob": -0.2},
                            {"token": " no", "logprob": -1.8},
                            {"token": "The", "logprob": -3.0},
                        ],
                    }
                ]
            },
        }
    ]
}


@pytest.fixture
def server_factory():
    started = []

    def start(respond) -> ScriptedServer:
        server = ScriptedServer(respond)
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()


def test_a_server_that_times_out_fails_after_the_retries(server_factory):
    server = server_factory(lambda handler, body: (time.sleep(1.5), reply(handler, 200, CHAT_REPLY)))
    backend = OpenAICompatibleBackend(server.url, "m", timeout_seconds=0.3, max_retries=1)
    started = time.monotonic()
    with pytest.raises(BackboneError, match="failed after 2 attempts: ReadTimeout"):
        backend.yes_no([QUESTION])
    assert time.monotonic() - started < 5
    backend.close()


def test_malformed_json_is_retried_then_reported(server_factory):
    server = server_factory(lambda handler, body: reply(handler, 200, b'{"choices": [ not json'))
    backend = OpenAICompatibleBackend(server.url, "m", max_retries=2)
    with pytest.raises(BackboneError, match="failed after 3 attempts: malformed reply"):
        backend.generate([GenerationRequest("p", Sampling(0.5, 8), 1)])
    backend.close()
    assert len(server.headers_seen) == 3


def test_replies_without_logprobs_and_client_errors_fail_at_once(server_factory):
    no_logprobs = {"choices": [{"message": {"content": "Yes"}, "logprobs": None}]}
    server = server_factory(lambda handler, body: reply(handler, 200, no_logprobs))
    backend = OpenAICompatibleBackend(server.url, "m", max_retries=3)
    with pytest.raises(BackboneError, match="no logprobs"):
        backend.yes_no([QUESTION])
    assert len(server.headers_seen) == 1
    backend.close()

    rejecting = server_factory(lambda handler, body: reply(handler, 400, {"error": "unknown model 'm'"}))
    backend = OpenAICompatibleBackend(rejecting.url, "m", max_retries=3)
    with pytest.raises(BackboneError, match="HTTP 400.*unknown model"):
        backend.generate([GenerationRequest("p", Sampling(0.5, 8), 1)])
    backend.close()


def test_flaky_server_is_retried_and_requests_run_concurrently(server_factory, monkeypatch):
    monkeypatch.setenv("SCICON_TEST_KEY", "secret-key-123")
    calls = {"count": 0}

    def respond(handler, body):
        calls["count"] += 1
        if calls["count"] == 1:
            reply(handler, 503, {"error": "warming up"})
            return
        time.sleep(0.2)
        reply(handler, 200, CHAT_REPLY)

    server = server_factory(respond)
    backend = OpenAICompatibleBackend(server.url, "m", api_key_env="SCICON_TEST_KEY", max_concurrency=4)
    answers = backend.yes_no([f"{QUESTION} {i}" for i in range(8)])
    backend.close()
    expected = 0.8187307530779818 / (0.8187307530779818 + 0.16529888822158653)
    assert all(a.p_yes == pytest.approx(expected) for a in answers)
    assert 1 < server.peak <= 4
    (client,) = backend.counters()["endpoints"].values()
    client_peak = client["peak_in_flight"]
    assert client_peak <= 4 and server.peak <= client_peak
    assert {h["Authorization"] for h in server.headers_seen} == {"Bearer secret-key-123"}
    assert "secret-key-123" not in json.dumps(backend.identity())


def test_completions_api_reads_legacy_logprobs(server_factory):
    legacy = {"choices": [{"text": " yes", "logprobs": {"top_logprobs": [{" yes": -0.5, " No": -0.5}]}}]}
    seen = []
    server = server_factory(lambda handler, body: (seen.append(body), reply(handler, 200, legacy)))
    backend = OpenAICompatibleBackend(server.url, "base-model", api="completions")
    (answer,) = backend.yes_no(["Is it? Answer:"])
    backend.close()
    assert answer.p_yes == pytest.approx(0.5)
    assert seen[0]["prompt"] == "Is it? Answer:" and seen[0]["logprobs"] == 20 and seen[0]["max_tokens"] == 1


def test_api_key_is_never_in_the_environment_dump_of_errors(server_factory, monkeypatch):
    monkeypatch.setenv("SCICON_TEST_KEY", "secret-key-456")
    server = server_factory(lambda handler, body: reply(handler, 401, {"error": "bad key"}))
    backend = OpenAICompatibleBackend(server.url, "m", api_key_env="SCICON_TEST_KEY")
    with pytest.raises(BackboneError) as caught:
        backend.yes_no([QUESTION])
    backend.close()
    assert "secret-key-456" not in str(caught.value)
    assert os.environ["SCICON_TEST_KEY"] == "secret-key-456"


@pytest.mark.slow
def test_the_served_model_is_recorded_from_a_real_server(llama_server, tmp_path):
    from scicon.backbones import CallCache

    base_url, _ = llama_server
    remote = OpenAICompatibleBackend(base_url, "smollm2")
    try:
        described = remote.check_served_model(CallCache(tmp_path / "calls.sqlite"))
    finally:
        remote.close()
    assert described["id"] == "smollm2" and "created" not in described
