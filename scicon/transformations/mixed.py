"""Several transformations at once: each request's candidates are shared out between them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from scicon.transformations.base import MutationRequest, Transformation


class MixedTransformation:
    def __init__(self, parts: Sequence[tuple[Transformation, float]]):
        total = sum(share for _, share in parts)
        if not parts or total <= 0:
            raise ValueError("a mixed transformation needs parts with positive shares")
        self.parts = [(part, share / total) for part, share in parts]
        self.name = "+".join(part.name for part, _ in parts)

    def _counts(self, count: int) -> list[int]:
        counts = [int(count * share) for _, share in self.parts]
        # hand the remainder to the largest shares first, so counts add up to `count`
        by_share = sorted(range(len(self.parts)), key=lambda i: -self.parts[i][1])
        for i in by_share[: count - sum(counts)]:
            counts[i] += 1
        return counts

    def propose(self, requests: Sequence[MutationRequest]) -> list[list[str | None]]:
        proposals: list[list[str | None]] = [[] for _ in requests]
        if not requests:
            return proposals
        for (part, _), count in zip(self.parts, self._counts(requests[0].count), strict=True):
            if count == 0:
                continue
            batch = [replace(r, count=count) for r in requests]
            for proposal, produced in zip(proposals, part.propose(batch), strict=True):
                proposal.extend(produced)
        return proposals
