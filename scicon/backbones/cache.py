"""A persistent, content-addressed cache of foundation-model calls.

Model calls are the cost of EvoNLI, so every call goes through here. A call's key
is a SHA-256 of: the backend's identity (backend kind, the model file's digest,
chat template, every setting that changes an answer), the operation, the full
prompt, the sampling settings, the seed and the sample index. The key never names
where a model runs: the same served model behind another replica reuses the answers.
Identical work is therefore never paid twice — not across `dvc exp run` variations
of thresholds, not after an interruption, not in a fresh clone on the same machine —
and a cached answer is by construction the one the same seed produced.

Storage is one SQLite file in WAL mode (``$SCICON_CACHE_DIR/calls.sqlite``), which
tolerates several processes (queued DVC experiments) and threads writing at once.
It lives outside every DVC output on purpose.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from scicon.backbones.base import Backend, Completion, GenerationRequest, Sampling, YesNo
from scicon.io import hash_file
from scicon.params import meets_threshold
from scicon.seeds import derive_seed

CACHE_FILE = "calls.sqlite"
_CHUNK = 500


class CallCache:
    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS file_digests "
            "(path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, sha256 TEXT)"
        )
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS served_models (identity TEXT PRIMARY KEY, description TEXT NOT NULL)"
        )

    def get_many(self, keys: Sequence[str]) -> dict[str, object]:
        found: dict[str, object] = {}
        with self._lock:
            for start in range(0, len(keys), _CHUNK):
                chunk = list(keys[start : start + _CHUNK])
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(f"SELECT key, value FROM calls WHERE key IN ({marks})", chunk)
                found.update((key, json.loads(value)) for key, value in rows)
        return found

    def put_many(self, items: dict[str, object]) -> None:
        if not items:
            return
        rows = [(key, json.dumps(value)) for key, value in items.items()]
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany("INSERT OR IGNORE INTO calls (key, value) VALUES (?, ?)", rows)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]

    def file_sha256(self, path: str | os.PathLike) -> str:
        """A file's SHA-256, recomputed only when its size or modification time changed."""
        resolved = Path(path).resolve()
        stat = resolved.stat()
        with self._lock:
            row = self._db.execute(
                "SELECT sha256 FROM file_digests WHERE path = ? AND size = ? AND mtime_ns = ?",
                (str(resolved), stat.st_size, stat.st_mtime_ns),
            ).fetchone()
        if row:
            return row[0]
        (value,) = hash_file(resolved, "sha256")
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO file_digests VALUES (?, ?, ?, ?)",
                (str(resolved), stat.st_size, stat.st_mtime_ns, value),
            )
        return value

    def swap_served_model(self, identity: str, description: dict) -> dict | None:
        """Record what a server reports about the model of ``identity``; the previous record."""
        text = json.dumps(description, sort_keys=True)
        with self._lock:
            row = self._db.execute(
                "SELECT description FROM served_models WHERE identity = ?", (identity,)
            ).fetchone()
            self._db.execute("INSERT OR REPLACE INTO served_models VALUES (?, ?)", (identity, text))
        return json.loads(row[0]) if row else None

    def close(self) -> None:
        with self._lock:
            self._db.close()


def answer_from_cache(
    cache: CallCache | None, keyed: dict[str, object], compute: Callable[[list], Sequence]
) -> tuple[dict[str, object], int]:
    """Answers for ``keyed`` (key → request): from ``cache`` where it has them, the rest
    computed in one batch and stored. Also returns how many were computed."""
    found = cache.get_many(list(keyed)) if cache is not None else {}
    missing = [key for key in keyed if key not in found]
    if missing:
        computed = dict(zip(missing, compute([keyed[key] for key in missing]), strict=True))
        if cache is not None:
            cache.put_many(computed)
        found.update(computed)
    return found, len(missing)


class CallStats:
    """Calls asked for, answered from the cache, and paid for, per operation; and how much
    probability the yes and no tokens held, per kind of yes/no prompt."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requested: Counter[str] = Counter()
        self.cached: Counter[str] = Counter()
        self.computed: Counter[str] = Counter()
        self.model_seconds = 0.0
        self.masses: defaultdict[str, list[float]] = defaultdict(list)

    def record(self, operation: str, requested: int, cached: int, computed: int, seconds: float) -> None:
        with self._lock:
            self.requested[operation] += requested
            self.cached[operation] += cached
            self.computed[operation] += computed
            self.model_seconds += seconds

    def record_masses(self, kind: str, masses: Sequence[float]) -> None:
        if not masses:
            return
        with self._lock:
            self.masses[kind].extend(masses)

    @classmethod
    def combined(cls, parts: list[CallStats]) -> CallStats:
        """One account of several backbones' calls (decoupled rewriter, filters and teacher)."""
        total = cls()
        for stats in parts:
            total.record_all(stats)
        return total

    def record_all(self, other: CallStats) -> None:
        with self._lock:
            self.requested.update(other.requested)
            self.cached.update(other.cached)
            self.computed.update(other.computed)
            self.model_seconds += other.model_seconds
            for kind, masses in other.masses.items():
                self.masses[kind].extend(masses)

    def as_metrics(self) -> dict:
        requested, cached = sum(self.requested.values()), sum(self.cached.values())
        metrics = {
            "calls_requested": requested,
            "calls_cached": cached,
            "calls_computed": sum(self.computed.values()),
            "cache_hit_rate": round(cached / requested, 4) if requested else 0.0,
            "model_seconds": round(self.model_seconds, 2),
        }
        for operation in sorted(self.requested):
            metrics[f"{operation}_computed"] = self.computed[operation]
        if self.masses:
            metrics["yes_no_mass"] = {
                kind: {
                    "answers": len(values),
                    "mean": round(float(np.mean(values)), 4),
                    "p5": round(float(np.percentile(values, 5)), 4),
                    # over HTTP: neither answer among the returned top-k tokens
                    "without_yes_or_no": sum(value == 0.0 for value in values),
                }
                for kind, values in sorted(self.masses.items())
                if values
            }
        return metrics


class CachedBackbone:
    """The backbone stages use: a backend behind the persistent cache, with call accounting.

    Identical prompts within one batch are sent to the model once. Use it as a context
    manager (``with load_backbone(params) as backbone:``); closing releases the backend
    (or this handle's share of a backend that :func:`scicon.backbones.load_backbone`
    shares between identical configurations).
    """

    def __init__(
        self,
        backend: Backend,
        cache: CallCache | None = None,
        release: Callable[[], None] | None = None,
    ):
        self.backend = backend
        self.cache = cache
        identity = json.dumps(backend.identity(), sort_keys=True)
        self.identity_digest = hashlib.sha256(identity.encode()).hexdigest()
        self.stats = CallStats()
        self._local = threading.local()
        self._release = release if release is not None else backend.close
        self._closed = False
        self._pending_lock = threading.Lock()
        self._pending = 0

    def __enter__(self) -> CachedBackbone:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    @contextlib.contextmanager
    def scope(self) -> Iterator[CallStats]:
        """Also count this thread's calls apart (e.g. per pair) while the block runs."""
        stats, previous = CallStats(), getattr(self._local, "scope", None)
        self._local.scope = stats
        try:
            yield stats
        finally:
            self._local.scope = previous

    @property
    def name(self) -> str:
        return self.backend.name

    @property
    def in_flight(self) -> int:
        """Requests handed to the model and not answered yet (all threads together)."""
        return self._pending

    def _key(self, operation: str, payload: dict) -> str:
        text = json.dumps([self.identity_digest, operation, payload], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def _cached_call(
        self, operation: str, keyed: dict[str, object], compute, requested: int
    ) -> dict[str, object]:
        """Resolve ``keyed`` (key → request) from the cache, computing the misses in one batch.

        ``requested`` counts every call asked for, including repeats within the batch.
        """
        elapsed = 0.0

        def timed_compute(batch: list) -> Sequence:
            nonlocal elapsed
            with self._pending_lock:
                self._pending += len(batch)
            started = time.perf_counter()
            try:
                answers = compute(batch)
            finally:
                elapsed = time.perf_counter() - started
                with self._pending_lock:
                    self._pending -= len(batch)
            return answers

        found, computed = answer_from_cache(self.cache, keyed, timed_compute)
        for stats in self._all_stats():
            stats.record(operation, requested, requested - computed, computed, elapsed)
        return found

    def _all_stats(self) -> list[CallStats]:
        scope = getattr(self._local, "scope", None)
        return [self.stats] if scope is None else [self.stats, scope]

    def generate(
        self, prompts: Sequence[str], seeds: Sequence[int], *, n: int, sampling: Sampling
    ) -> list[list[Completion]]:
        """``n`` completions per prompt; sample ``j`` of a prompt depends only on (prompt, seed, j).

        A completion stopped by ``sampling.max_tokens`` says so (``truncated``): callers
        treat it as no answer.
        """
        if len(seeds) != len(prompts):
            raise ValueError("generate needs one seed per prompt")
        # "completion" entries hold [text, truncated]; the text-only "generate" entries of
        # earlier versions are never read as completions
        keys = [
            [
                self._key("completion", {"prompt": p, "sampling": sampling.as_key(), "seed": s, "sample": j})
                for j in range(n)
            ]
            for p, s in zip(prompts, seeds, strict=True)
        ]
        keyed = {
            key: GenerationRequest(prompt, sampling, derive_seed(seed, j))
            for prompt, seed, row in zip(prompts, seeds, keys, strict=True)
            for j, key in enumerate(row)
        }

        def compute(batch: list[GenerationRequest]) -> list[list]:
            return [[completion.text, completion.truncated] for completion in self.backend.generate(batch)]

        results = self._cached_call("generate", keyed, compute, len(prompts) * n)
        return [[Completion(*results[key]) for key in row] for row in keys]

    def yes_no(self, prompts: Sequence[str], kind: str | None = None) -> list[YesNo]:
        """P(yes) and the yes/no mass per prompt; ``kind`` (e.g. "classification") labels the
        prompts in the mass statistics of the metrics."""
        keys = [self._key("yes_no", {"prompt": prompt}) for prompt in prompts]
        keyed = dict(zip(keys, prompts, strict=True))

        def compute(batch: list[str]) -> list[list[float]]:
            return [[answer.p_yes, answer.mass] for answer in self.backend.yes_no(batch)]

        results = self._cached_call("yes_no", keyed, compute, len(prompts))
        answers = [YesNo(*results[key]) for key in keys]
        for stats in self._all_stats():
            stats.record_masses(kind or "unlabelled", [answer.mass for answer in answers])
        return answers

    def log_likelihood(self, texts: Sequence[str]) -> list[float]:
        """Each text's summed token log-probability (nats) as written, one forward pass each."""
        keys = [self._key("log_likelihood", {"text": text}) for text in texts]
        keyed = dict(zip(keys, texts, strict=True))
        results = self._cached_call("log_likelihood", keyed, self.backend.log_likelihood, len(texts))
        return [float(results[key]) for key in keys]

    def metrics(self) -> dict:
        """This handle's calls (:class:`CallStats`) and what the backend counted (tokens,
        endpoints) — for a backend shared by identical configurations, all handles together."""
        return {**self.stats.as_metrics(), **self.backend.counters()}

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._release()


def yes_probabilities(
    backbone: CachedBackbone, prompts: Sequence[str], kind: str, min_mass: float
) -> list[float | None]:
    """P(yes) per question prompt (the paper's LLM filters and teacher); None where the yes and
    no tokens held less than ``min_mass`` of the probability: the model did not answer."""
    return [
        answer.p_yes if meets_threshold(answer.mass, min_mass) else None
        for answer in backbone.yes_no(prompts, kind=kind)
    ]


def combined_metrics(backbones: Sequence[CachedBackbone]) -> dict:
    """One account of several handles' calls (decoupled rewriter, filters and teacher), with
    what each distinct backend counted (tokens, endpoints): at the top level when there is
    one backend, else under ``backends`` by model identity."""
    metrics = CallStats.combined([b.stats for b in backbones]).as_metrics()
    backends = {id(b.backend): b for b in backbones}
    if len(backends) == 1:
        metrics.update(next(iter(backends.values())).backend.counters())
    else:
        metrics["backends"] = {b.identity_digest[:12]: b.backend.counters() for b in backends.values()}
    return metrics


_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt")


def weights_identity(
    model: str, digests: CallCache | None, *, gguf_file: str | None = None, revision: str | None = None
) -> dict:
    """Identify a model's weights for cache keys: file digests for a local folder (weights
    and config), id and revision for a hub model."""
    folder = Path(model)
    if not folder.exists():
        return {"hub_id": model, "revision": revision or "main", "gguf_file": gguf_file}
    files = (
        [folder / gguf_file]
        if gguf_file
        else sorted(
            p
            for p in folder.rglob("*")
            if p.is_file() and (p.suffix in _WEIGHT_SUFFIXES or p.name == "config.json")
        )
    )
    digest = hashlib.sha256()
    for path in files:
        file_digest = digests.file_sha256(path) if digests is not None else hash_file(path)[0]
        digest.update(f"{path.relative_to(folder)}:{file_digest}\n".encode())
    return {"local_sha256": digest.hexdigest()}
