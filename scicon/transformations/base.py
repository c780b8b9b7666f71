"""What a transformation is: ``count`` candidate rewrites of sentence2 per request."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from scicon.backbones.base import derive_seed
from scicon.records.base import TargetLabel
from scicon.records.corpus import Abstract


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
        (empty, or the member or the original unchanged)."""


_NORMALISE = re.compile(r"[^a-z0-9%.]+")


def same_sentence(first: str, second: str) -> bool:
    """Equal up to case, spacing and punctuation: such a rewrite changed nothing."""
    return _NORMALISE.sub(" ", first.lower()).strip(" .") == _NORMALISE.sub(" ", second.lower()).strip(" .")


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


def usable(rewrite: str | None, request: MutationRequest) -> str | None:
    if (
        rewrite is None
        or same_sentence(rewrite, request.sentence2)
        or same_sentence(rewrite, request.original)
    ):
        return None
    return rewrite
