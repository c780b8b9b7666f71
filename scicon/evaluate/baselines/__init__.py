"""Trivial baselines reported beside every model, one module each, registered in :data:`BASELINES`.

A number that looks good only beside nothing is a warning: a classifier that scores
0.83 on SciCon's own test split can be at chance elsewhere, and a one-line heuristic
can beat it. Each baseline scores a benchmark's pairs without any model trained on
SciCon. A factory ``make(settings, seed)`` returns a scorer: ``score(pairs) ->
list[float]`` over :class:`~scicon.evaluate.benchmarks.BenchmarkPair`, higher meaning
"more likely a contradiction". A baseline registered with ``two_sided=True`` has no
a-priori direction (does more word overlap mean contradiction or not?); it is
reported in both, the second as ``<name>_negated``. A scorer that cannot work on a
benchmark raises :class:`BaselineUnavailable` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import Field

from scicon.params import Section
from scicon.registry import Registry

if TYPE_CHECKING:
    from scicon.records.benchmark import BenchmarkPair


class BaselineFactory(Protocol):
    """A registered baseline: its validated settings (None without any) and the seed."""

    def __call__(self, settings: Any, seed: int) -> Callable[[Sequence[BenchmarkPair]], list[float]]: ...


class BaselineFacts(Section):
    """What a baseline states when it registers."""

    two_sided: bool = Field(default=False, description="no direction: reported both ways (`_negated`)")


BASELINES: Registry[BaselineFactory] = Registry("baseline", package=__name__, facts=BaselineFacts)


class BaselineUnavailable(Exception):
    """The baseline cannot score this benchmark (the message says why); it is reported, not zeroed."""
