"""Spreading requests over several replicas of one served model, client-side and minimal.

The scale-out engine is the inference server (vLLM or SGLang data parallelism, a
load balancer, Ray Serve): with one of those in front, ``base_url`` is one URL and
this pool has one endpoint. For plain replicas without a router it does three things
only: each request goes to the endpoint with the fewest requests in flight (below its
``max_concurrency``); an endpoint whose request failed is left alone for a while
(0.5 s, doubling per further failure, at most 30 s); and a failed request is retried
on another endpoint where one is free. It also keeps the counters the stage metrics
report: attempts, answers, failures, and the time-weighted mean of requests in flight.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

FIRST_BACKOFF_SECONDS = 0.5
MAX_BACKOFF_SECONDS = 30.0


class Outcome(Enum):
    ANSWERED = "answered"
    FAILED = "failed"  # retryable: refused, timed out, 429/5xx, malformed reply
    REJECTED = "rejected"  # the server answered with a client error: retrying cannot help


@dataclass
class Endpoint:
    url: str
    in_flight: int = 0
    peak_in_flight: int = 0
    attempts: int = 0
    outcomes: dict[Outcome, int] = field(default_factory=lambda: dict.fromkeys(Outcome, 0))
    backoff_level: int = 0
    unavailable_until: float = 0.0
    in_flight_seconds: float = 0.0  # integral of in_flight over time
    busy_seconds: float = 0.0  # time with at least one request in flight


class EndpointPool:
    """Endpoints of one model, each with at most ``limit`` requests in flight (thread-safe)."""

    def __init__(self, urls: Sequence[str], limit: int, clock: Callable[[], float] = time.monotonic):
        if not urls:
            raise ValueError("an endpoint pool needs at least one URL")
        self.endpoints = [Endpoint(url) for url in urls]
        self.limit = limit
        self._clock = clock
        self._condition = threading.Condition()
        self._started: float | None = None
        self._last_change = 0.0
        self._waited = 0

    @property
    def capacity(self) -> int:
        return self.limit * len(self.endpoints)

    @property
    def in_flight(self) -> int:
        return sum(endpoint.in_flight for endpoint in self.endpoints)

    def _advance(self, now: float) -> None:
        if self._started is None:
            self._started = now
        else:
            for endpoint in self.endpoints:
                endpoint.in_flight_seconds += endpoint.in_flight * (now - self._last_change)
                endpoint.busy_seconds += (now - self._last_change) if endpoint.in_flight else 0.0
        self._last_change = now

    def acquire(self, avoid: str | None = None) -> Endpoint:
        """A slot on the least busy available endpoint; waits while all are full or backing off.

        ``avoid`` (where a request just failed) is used again only when no other endpoint
        is available at all, not merely full.
        """
        with self._condition:
            waited = False
            while True:
                now = self._clock()
                available = [e for e in self.endpoints if e.unavailable_until <= now]
                preferred = [e for e in available if e.url != avoid] or available
                free = [e for e in preferred if e.in_flight < self.limit]
                if free:
                    chosen = min(free, key=lambda e: (e.in_flight, e.attempts))
                    self._advance(now)
                    chosen.in_flight += 1
                    chosen.peak_in_flight = max(chosen.peak_in_flight, chosen.in_flight)
                    chosen.attempts += 1
                    self._waited += waited
                    return chosen
                waited = True
                backing_off = [e.unavailable_until - now for e in self.endpoints if e.unavailable_until > now]
                self._condition.wait(timeout=min(backing_off) if backing_off else None)

    def release(self, endpoint: Endpoint, outcome: Outcome) -> None:
        with self._condition:
            now = self._clock()
            self._advance(now)
            endpoint.in_flight -= 1
            endpoint.outcomes[outcome] += 1
            if outcome is Outcome.FAILED:
                # requests sent before the endpoint was put aside fail together: one step, not many
                if now >= endpoint.unavailable_until:
                    delay = FIRST_BACKOFF_SECONDS * 2**endpoint.backoff_level
                    endpoint.unavailable_until = now + min(delay, MAX_BACKOFF_SECONDS)
                    endpoint.backoff_level += 1
            else:
                endpoint.backoff_level = 0
            self._condition.notify_all()

    def counters(self) -> dict:
        """Per endpoint and in total: attempts by outcome, peak and mean requests in flight, and the
        share of the time an endpoint had any request in flight."""
        with self._condition:
            # from the first request sent to the last answer: idle time after the run is not use
            elapsed = self._last_change - self._started if self._started is not None else 0.0

            def mean(seconds: float) -> float:
                return round(seconds / elapsed, 2) if elapsed > 0 else 0.0

            endpoints = {
                f"endpoint_{number}": {
                    "url": endpoint.url,
                    "attempts": endpoint.attempts,
                    **{outcome.value: count for outcome, count in endpoint.outcomes.items()},
                    "peak_in_flight": endpoint.peak_in_flight,
                    "mean_in_flight": mean(endpoint.in_flight_seconds),
                    # a server that answers one request at a time is busy this share of the run
                    "busy_share": mean(endpoint.busy_seconds),
                }
                for number, endpoint in enumerate(self.endpoints, start=1)
            }
            return {
                "endpoints": endpoints,
                "requests_capacity": self.capacity,
                "requests_mean_in_flight": mean(sum(e.in_flight_seconds for e in self.endpoints)),
                "requests_waited_for_a_slot": self._waited,
            }
