"""Several transformations at once: each request's candidates are shared out between them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pydantic import Field, field_validator

from scicon.assembly_context import AssemblyContext, models_of
from scicon.params import Section
from scicon.sampling import apportion
from scicon.transformations import TRANSFORMATIONS
from scicon.transformations.base import MutationRequest, Transformation


def share_out(count: int, shares: Sequence[float]) -> list[int]:
    """How many of ``count`` candidates each part proposes, in the parts' order."""
    counts = apportion(dict(enumerate(shares)), count)
    return [counts[part] for part in range(len(shares))]


class MixedTransformation:
    def __init__(self, parts: Sequence[tuple[Transformation, float]]):
        total = sum(share for _, share in parts)
        if not parts or total <= 0:
            raise ValueError("a mixed transformation needs parts with positive shares")
        self.parts = [(part, share / total) for part, share in parts]
        self.name = "+".join(part.name for part, _ in parts)

    def models(self) -> dict[str, object]:
        return models_of((part.name, part) for part, _ in self.parts)

    def propose(self, requests: Sequence[MutationRequest]) -> list[list[str | None]]:
        proposals: list[list[str | None]] = [[] for _ in requests]
        if not requests:
            return proposals
        counts = share_out(requests[0].count, [share for _, share in self.parts])
        for (part, _), count in zip(self.parts, counts, strict=True):
            if count == 0:
                continue
            batch = [replace(r, count=count) for r in requests]
            for proposal, produced in zip(proposals, part.propose(batch), strict=True):
                proposal.extend(produced)
        return proposals


class MixedSettings(Section):
    parts: dict[str, float] = Field(
        min_length=1, description="transformation name -> share of each request's candidates, in order"
    )

    @field_validator("parts")
    @classmethod
    def _shares(cls, parts: dict[str, float]) -> dict[str, float]:
        if any(share < 0 for share in parts.values()) or sum(parts.values()) <= 0:
            raise ValueError("shares must be non-negative with a positive sum")
        if "mixed" in parts:
            raise ValueError("a mixed transformation cannot contain itself")
        return parts


@TRANSFORMATIONS.register("mixed", settings=MixedSettings, description="several transformations share out")
def mixed_transformation(settings: MixedSettings, context: AssemblyContext) -> MixedTransformation:
    return MixedTransformation(
        [(_part(name, context), share) for name, share in settings.parts.items() if share > 0]
    )


def _part(name: str, context: AssemblyContext) -> Transformation:
    return context.part("transformation", name, "evolve.settings.transformation.mixed.parts")
