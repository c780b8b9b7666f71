"""A simulated OpenAI-compatible inference server on 127.0.0.1, for benchmarks and tests.

It stands in for one vLLM replica with known, fixed capacity: at most ``capacity``
requests are served at once (more wait in a queue, as in a server whose batch is
full) and each takes ``latency`` seconds, so it can answer at most capacity ÷ latency
requests per second. Replies have the shape and size of vLLM's: a chat or text
completion with ``usage``, and for one-token scoring requests the top-k logprobs
(token, logprob, bytes) of the next token.

Answers are deterministic functions of the request, as a served model's greedy
scores and seeded samples are:

- yes/no prompts (recognised by their EvoNLI template) get P(yes) from a hash of the
  prompt, shaped per template so the search behaves plausibly: most candidates pass
  the topic and claim checks, few convince the teacher (pairs differ in difficulty);
- word-replacement prompts get sentence2 with one word changed, chosen by the seed.

``fail_after=N`` makes the server die after N answers: it stops accepting
connections and drops every request it holds without a reply, as a crashed replica.

    python -m perf.simulated_server --port 8101 --latency 0.25 --capacity 64
"""

from __future__ import annotations

import argparse
import hashlib
import http.server
import json
import math
import random
import re
import threading
import time
import uuid
from dataclasses import dataclass, field

from scicon.prompts import CLAIM_DETECTION, CLASSIFICATION, SIMILARITY, WORD_REPLACEMENT

_FILLER_TOKENS = [
    f" {word}"
    for word in "The It This There In A We Both Not Maybe Sentence Answer I They However Although".split()
]
_REPLACEMENTS = ["increased", "decreased", "did not improve", "worsened", "failed to reduce", "raised",
                 "lowered", "was not associated with", "prevented", "caused"]  # fmt: skip
_REWRITE_MARK = WORD_REPLACEMENT.text.split("\n\n")[1]  # "Choose words from sentence2 and replace them ..."
_SENTENCE1 = re.compile(r"sentence1:\s*(.*)")
_SENTENCE2 = re.compile(r"sentence2:\s*(.*?)\nAnswer:", re.DOTALL)


def _unit(*parts: object) -> float:
    """A number in [0, 1) determined by ``parts``."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "little") / 2**64


def p_yes(prompt: str) -> float:
    """The simulated model's P(yes) for a yes/no prompt."""
    draw = _unit(prompt)
    if prompt.startswith(CLASSIFICATION.text[:60]):
        # pairs differ in difficulty: P(a candidate reaches T_conf 0.4) from 37% down to 2%
        sentence1 = _SENTENCE1.search(prompt)
        difficulty = 2 + 48 * _unit(sentence1.group(1) if sentence1 else "")
        return draw**difficulty
    if prompt.startswith(SIMILARITY.text[:60]):
        return draw**0.3  # about 90% pass T_sim 0.5
    if prompt.startswith(CLAIM_DETECTION.text[:60]):
        return draw**0.03  # about 97% pass T_claim 0.9
    return draw


def rewrite(prompt: str, seed: int) -> str:
    """sentence2 of a word-replacement prompt with one word changed (which one: the seed)."""
    found = _SENTENCE2.findall(prompt)
    words = (found[-1] if found else prompt[-200:]).split()
    rng = random.Random(f"{seed}:{prompt}")
    if len(words) > 2:
        words[rng.randrange(1, len(words) - 1)] = rng.choice(_REPLACEMENTS)
    return " ".join(words)


def count_tokens(text: str) -> int:
    return max(1, len(text) // 4)  # about four characters per token in English text


def top_logprobs(prompt: str, k: int, *, without_answers: bool = False) -> list[dict]:
    """The next token's top-``k`` candidates: the yes/no variants hold 90% of the probability."""
    yes = p_yes(prompt)
    entries = [] if without_answers else [("Yes", 0.6 * yes), (" yes", 0.3 * yes), ("No", 0.6 * (1 - yes)),
                                          (" no", 0.3 * (1 - yes))]  # fmt: skip
    share = 0.1 / len(_FILLER_TOKENS)
    entries += [(token, share * (0.9**rank)) for rank, token in enumerate(_FILLER_TOKENS)]
    entries.sort(key=lambda entry: -entry[1])
    return [
        {"token": token, "logprob": math.log(max(p, 1e-12)), "bytes": list(token.encode())}
        for token, p in entries[:k]
    ]


@dataclass
class ServerStats:
    received: int = 0
    answered: int = 0
    dropped: int = 0
    active: int = 0
    peak_active: int = 0
    active_seconds: float = 0.0  # integral of busy slots over time
    first: float | None = None
    last: float = 0.0
    by_path: dict[str, int] = field(default_factory=dict)


class SimulatedServer:
    """One simulated replica; ``url`` ends in /v1. Use as a context manager or call close()."""

    def __init__(
        self,
        *,
        latency: float = 0.25,
        capacity: int = 64,
        model: str = "simulated-llm",
        port: int = 0,
        fail_after: int | None = None,
        answers_in_top_k: bool = True,
        root: str = "/models/simulated-llm",
        record_prompts: bool = False,
    ):
        self.latency, self.capacity, self.model, self.root = latency, capacity, model, root
        self.fail_after = fail_after
        self.answers_in_top_k = answers_in_top_k
        self.failed = False
        self.stats = ServerStats()
        self.prompts: list[str] | None = [] if record_prompts else None  # in order of arrival
        self._slots = threading.BoundedSemaphore(capacity)
        self._lock = threading.Lock()
        handler = _handler_for(self)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> SimulatedServer:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _busy(self, change: int) -> None:
        with self._lock:
            now = time.monotonic()
            stats = self.stats
            if stats.first is None:
                stats.first = now
            stats.active_seconds += stats.active * (now - stats.last) if stats.last else 0.0
            stats.last = now
            stats.active += change
            stats.peak_active = max(stats.peak_active, stats.active)

    def snapshot(self) -> dict:
        with self._lock:
            stats = self.stats
            elapsed = stats.last - stats.first if stats.first is not None else 0.0
            return {
                "received": stats.received,
                "answered": stats.answered,
                "dropped": stats.dropped,
                "peak_active": stats.peak_active,
                "mean_active": stats.active_seconds / elapsed if elapsed > 0 else 0.0,
                "busy_seconds": elapsed,
                "capacity": self.capacity,
                "latency": self.latency,
                "by_path": dict(stats.by_path),
            }

    def die(self) -> None:
        """Stop accepting connections and drop what is in flight, as a crashed replica."""
        self.failed = True
        threading.Thread(target=self.close, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, path: str, body: dict) -> dict:
        chat = path.endswith("/chat/completions")
        prompt = body["messages"][-1]["content"] if chat else body["prompt"]
        prompt_tokens = count_tokens(prompt)
        created = int(time.time())
        if body.get("max_tokens") == 1 and body.get("logprobs"):
            k = int(body.get("top_logprobs") or 0) if chat else int(body["logprobs"])
            if k > 20:
                raise ValueError(f"Requested logprobs of {k}, which is greater than max allowed: 20")
            top = top_logprobs(prompt, k, without_answers=not self.answers_in_top_k)
            first = top[0]
            if chat:
                choice = {
                    "index": 0,
                    "message": {"role": "assistant", "content": first["token"]},
                    "logprobs": {"content": [{**first, "top_logprobs": top}]},
                    "finish_reason": "length",
                }
            else:
                choice = {
                    "index": 0,
                    "text": first["token"],
                    "logprobs": {
                        "tokens": [first["token"]],
                        "token_logprobs": [first["logprob"]],
                        "top_logprobs": [{entry["token"]: entry["logprob"] for entry in top}],
                        "text_offset": [0],
                    },
                    "finish_reason": "length",
                }
            completion_tokens = 1
        else:
            is_rewrite = _REWRITE_MARK in prompt
            text = rewrite(prompt, int(body.get("seed") or 0)) if is_rewrite else ""
            if not text:
                text = "The results support the conclusion."
            limit = int(body.get("max_tokens") or 16)
            finish = "stop"
            if count_tokens(text) > limit:
                text, finish = text[: limit * 4], "length"
            completion_tokens = count_tokens(text)
            message = {"role": "assistant", "content": text, "tool_calls": []}
            choice = {"index": 0, "finish_reason": finish, "logprobs": None}
            choice.update({"message": message} if chat else {"text": text})
        return {
            "id": f"cmpl-{uuid.uuid4().hex}",
            "object": "chat.completion" if chat else "text_completion",
            "created": created,
            "model": body.get("model", self.model),
            "choices": [choice],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def models(self) -> dict:
        return {
            "object": "list",
            "data": [
                {
                    "id": self.model,
                    "object": "model",
                    "created": int(time.time()),  # changes on every call, as vLLM's does
                    "owned_by": "simulated",
                    "root": self.root,
                    "parent": None,
                    "max_model_len": 8192,
                }
            ],
        }


def _handler_for(simulated: SimulatedServer) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real clients and servers use

        def log_message(self, *args) -> None:
            pass

        def _reply(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _drop(self) -> None:
            with simulated._lock:
                simulated.stats.dropped += 1
            self.close_connection = True

        def do_GET(self) -> None:
            if simulated.failed:
                return self._drop()
            if self.path.rstrip("/").endswith("/models"):
                return self._reply(200, simulated.models())
            if self.path.rstrip("/").endswith("/stats"):
                return self._reply(200, simulated.snapshot())
            self._reply(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length))
            if simulated.failed:
                return self._drop()
            with simulated._lock:
                simulated.stats.received += 1
                simulated.stats.by_path[self.path] = simulated.stats.by_path.get(self.path, 0) + 1
                if simulated.prompts is not None:
                    simulated.prompts.append(
                        body["messages"][-1]["content"] if "messages" in body else body["prompt"]
                    )
            with simulated._slots:
                simulated._busy(+1)
                try:
                    try:
                        payload, status = simulated.answer(self.path, body), 200
                    except ValueError as error:
                        payload, status = {"object": "error", "message": str(error)}, 400
                    time.sleep(simulated.latency)
                finally:
                    simulated._busy(-1)
            # Deciding to answer and counting the answer is one step under the lock: requests
            # in flight when the server reaches fail_after are dropped, never answered after it.
            with simulated._lock:
                limit_reached = (
                    simulated.fail_after is not None and simulated.stats.answered >= simulated.fail_after
                )
                answering = not simulated.failed and not limit_reached
                if answering:
                    simulated.stats.answered += 1
                dies = simulated.fail_after is not None and simulated.stats.answered >= simulated.fail_after
            if not answering:
                return self._drop()
            self._reply(status, payload)
            if dies and not simulated.failed:
                simulated.die()

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--latency", type=float, default=0.25, help="seconds per request")
    parser.add_argument("--capacity", type=int, default=64, help="requests served at once")
    parser.add_argument("--model", default="simulated-llm")
    args = parser.parse_args()
    server = SimulatedServer(latency=args.latency, capacity=args.capacity, model=args.model, port=args.port)
    print(f"serving {args.model} at {server.url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.close()


if __name__ == "__main__":
    main()
