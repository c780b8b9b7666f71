"""Parameters of the evolve stage (`evolve` in params.yaml); the thresholds are top-level."""

from __future__ import annotations

from pydantic import Field, field_validator

from scicon.params import Operational, Section
from scicon.records.base import TargetLabel
from scicon.records.pairs import PairKind


class EvolveParams(Section):
    """Algorithm 1's sizes (paper Table 6), its four parts chosen by name, and their settings.

    Each part names a registered component (see :mod:`scicon.evolve.assembly`); each paper
    ablation is a value here (see :mod:`scicon.evolve.recipes`). ``settings`` holds every
    component's block, ``settings.<part>.<name>``, validated by that component's model.
    """

    population_size: int = Field(gt=0)
    candidates_per_mutation: int = Field(gt=0)
    max_iterations: int = Field(gt=0)
    targets: tuple[TargetLabel, ...] = Field(min_length=1)
    search: str = Field(min_length=1)
    transformation: str = Field(min_length=1)
    similarity: str = Field(min_length=1, description="a similarity constraint, or off")
    claim: str = Field(min_length=1, description="a claim constraint, or off")
    fluency: str = Field(min_length=1, description="a fluency constraint (params candidates.fluency), or off")
    goal: str = Field(min_length=1)
    edits: tuple[str, ...] = Field(description="edit constraints a candidate must pass, cheapest first")
    max_words_changed: float = Field(
        gt=0.0, le=1.0, description="share of a parent's words an edit may change"
    )
    min_mass: float = Field(
        ge=0.0, le=1.0, description="yes/no answers with less probability on yes+no count as no answer"
    )
    settings: dict[str, dict[str, dict | None]] = Field(description="component settings by part and name")
    pair_kinds: tuple[PairKind, ...] = Field(min_length=1)
    max_pairs: int | None = Field(gt=0)
    seed: int
    workers: int = Operational(gt=0)

    @field_validator("targets", "edits")
    @classmethod
    def _listed_once(cls, values: tuple) -> tuple:
        if len(set(values)) != len(values):
            raise ValueError("an entry is listed more than once")
        return values
