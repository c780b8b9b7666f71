"""What a transformation is: ``count`` candidate rewrites of sentence2 per request."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from scicon.records.base import TargetLabel
from scicon.records.corpus import Abstract
from scicon.seeds import derive_seed

if TYPE_CHECKING:
    from scicon.assembly_context import AssemblyContext


@dataclass(frozen=True)
class MutationRequest:
    sentence1: str
    sentence2: str = ""  # the population member to rewrite
    original: str = ""  # the pair's unmutated sentence2
    target: TargetLabel = TargetLabel.CONTRADICTION
    seed: int = 0
    count: int = 1
    context: Abstract | None = None


class Transformation(Protocol):
    name: str

    def propose(self, requests: Sequence[MutationRequest]) -> list[list[str | None]]:
        """``request.count`` proposals per request, in a fixed order; None is a failed mutation
        (no rewrite could be made or read). Whether a rewrite is a real edit of its member is
        for the edit constraints to say (:mod:`scicon.constraints.edits`)."""


class TransformationFactory(Protocol):
    """A registered transformation: its validated settings (None without any) and the context."""

    def __call__(self, settings: Any, context: AssemblyContext) -> Transformation: ...


class RandomizedTransformation:
    """Base of transformations that edit sentence2 at random: one seeded generator per sample.

    Sample ``j`` of a request draws from ``derive_seed(request.seed, j)``, so it does
    not depend on batching or on how many samples were asked for.
    """

    name = "randomized"

    def propose(self, requests: Sequence[MutationRequest]) -> list[list[str | None]]:
        return [
            [self._sample(request, random.Random(derive_seed(request.seed, j))) for j in range(request.count)]
            for request in requests
        ]

    def _sample(self, request: MutationRequest, rng: random.Random) -> str | None:
        raise NotImplementedError
