"""The OpenAI-compatible HTTP backend against real servers on 127.0.0.1.

One is llama.cpp's own OpenAI-compatible server running the embedded SmolLM2;
the others are small misbehaving servers: slow, malformed, failing, flaky.
"""

from __future__ import annotations

import http.server
import json
import os
import threading
import time

import pytest

from scicon.backbones import BackboneError, Sampling
from scicon.backbones.base import GenerationRequest
from scicon.backbones.llama_cpp_backend import LlamaCppBackend
from scicon.backbones.openai_http import OpenAICompatibleBackend
from scicon.prompts import CLAIM_DETECTION, CLASSIFICATION, SIMILARITY
from tests.llama_server import SERVED_NAME

QUESTION = CLASSIFICATION.format(
    sentence1="Velanoxet reduced major bleeding compared with warfarin.",
    sentence2="Velanoxet increased major bleeding compared with warfarin.",
)


# The three yes/no prompts of the search (E.3.4-E.3.6), on a contradicting and an entailing pair.
PAIRS = [
    ("Velanoxet reduced major bleeding compared with warfarin.",
     "Velanoxet increased major bleeding compared with warfarin."),
    ("Major bleeding occurred in 4% of velanoxet and 9% of warfarin patients.",
     "Velanoxet reduced major bleeding compared with warfarin."),
]  # fmt: skip
YES_NO_PROMPTS = [
    prompt
    for sentence1, sentence2 in PAIRS
    for prompt in (
        CLASSIFICATION.format(sentence1=sentence1, sentence2=sentence2),
        SIMILARITY.format(sentence1=sentence1, sentence2=sentence2),
        CLAIM_DETECTION.format(sentence=sentence2),
    )
]


@pytest.mark.slow
@pytest.mark.parametrize(("api", "chat_template"), [("chat", "auto"), ("completions", "none")])
def test_scores_over_either_api_match_the_local_backend_on_the_same_model(llama_server, api, chat_template):
    """The chat API applies the model's template on the server, as the local backend's ``auto``
    does; the completions API sends the raw prompt, as ``none`` does."""
    base_url, model = llama_server
    remote = OpenAICompatibleBackend(base_url, SERVED_NAME, api=api, max_concurrency=2)
    local = LlamaCppBackend(model, chat_template=chat_template, context_length=1024)
    try:
        over_http = remote.yes_no(YES_NO_PROMPTS)
        in_process = local.yes_no(YES_NO_PROMPTS)
    finally:
        remote.close()
        local.close()
    differences = [abs(a.p_yes - b.p_yes) for a, b in zip(over_http, in_process, strict=True)]
    print(f"{api}: largest |P(yes) over HTTP - in process| of {len(differences)}: {max(differences):.4f}")
    # Where the yes and no tokens hold a third of the probability or more, the server's top-20
    # logprobs carry them all; where they hold a few per cent (the similarity prompt: 0.06), yes/no
    # spellings outside the top 20 are missed and P(yes) moves by up to 0.02.
    for answer, reference, difference in zip(over_http, in_process, differences, strict=True):
        assert difference <= (0.005 if reference.mass >= 0.3 else 0.03)
        assert 0.0 < answer.mass <= reference.mass + 1e-3


@pytest.mark.slow
def test_generation_over_http_is_seeded(llama_server):
    base_url, _ = llama_server
    remote = OpenAICompatibleBackend(base_url, SERVED_NAME, max_concurrency=3)
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
