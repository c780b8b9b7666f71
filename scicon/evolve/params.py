"""Parameters of the evolve stage (`evolve` in params.yaml); the thresholds are top-level."""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from scicon.evolve.recipes import BY_NAME, CUSTOM, PARTS, RECIPES
from scicon.params import Operational, Section
from scicon.records.base import TargetLabel
from scicon.records.pairs import PairKind


class EvolveParams(Section):
    """EvoNLI's target labels, its four parts chosen by name, and their settings.

    Each part names a registered component (see :mod:`scicon.evolve.assembly`); each paper
    ablation is a value here (see :mod:`scicon.evolve.recipes`). ``recipe`` names one of
    them: set, it fills the five parts it covers (search, transformation, similarity, claim,
    goal) that are null, and a part set to another component is an error naming both keys;
    null, the keys choose. ``settings`` holds the components' blocks, ``settings.<part>.<name>``,
    validated by their models.
    """

    # Algorithm 1's sizes are the evolutionary search's alone: the direct prompt has none
    moved_keys = {
        size: f"settings.search.evolutionary.{size}"
        for size in ("population_size", "candidates_per_mutation", "max_iterations")
    }

    targets: tuple[TargetLabel, ...] = Field(min_length=1)
    recipe: str | None = Field(description="a Table 2 row that fills the five parts left null, or null")
    search: str = Field(min_length=1)
    transformation: str = Field(min_length=1)
    similarity: str = Field(min_length=1, description="a similarity constraint, or off")
    claim: str = Field(min_length=1, description="a claim constraint, or off")
    fluency: str = Field(min_length=1, description="a fluency constraint (params candidates.fluency), or off")
    goal: str = Field(min_length=1)
    edits: tuple[str, ...] = Field(description="edit constraints a candidate must pass, cheapest first")
    settings: dict[str, dict[str, dict | None]] = Field(description="component settings by part and name")
    pair_kinds: tuple[PairKind, ...] = Field(min_length=1)
    max_pairs: int | None = Field(gt=0)
    seed: int
    confidence_level: float = Field(
        gt=0.0, lt=1.0, description="the level of the success rate's Wilson interval"
    )
    workers: int = Operational(gt=0)

    @model_validator(mode="before")
    @classmethod
    def _recipe_fills_its_parts(cls, values: Any) -> Any:
        recipe = BY_NAME.get(values.get("recipe")) if isinstance(values, dict) else None
        if recipe is None:
            return values
        return {**values, **{part: name for part, name in recipe.parts().items() if values.get(part) is None}}

    @field_validator(*PARTS)
    @classmethod
    def _as_the_recipe_says(cls, name: str, info: ValidationInfo) -> str:
        recipe = BY_NAME.get(info.data.get("recipe"))
        if recipe is not None and recipe.parts()[info.field_name] != name:
            wanted = recipe.parts()[info.field_name]
            raise ValueError(
                f"evolve.recipe {recipe.name!r} sets evolve.{info.field_name} to {wanted!r}: "
                f"set evolve.{info.field_name} null (or {wanted!r}), or evolve.recipe null"
            )
        return name

    @field_validator("recipe")
    @classmethod
    def _known_recipe(cls, name: str | None) -> str | None:
        if name is not None and name not in BY_NAME:
            raise ValueError(f"unknown recipe {name!r} (known: {', '.join(BY_NAME)})")
        return name

    @field_validator("targets", "edits")
    @classmethod
    def _listed_once(cls, values: tuple) -> tuple:
        if len(set(values)) != len(values):
            raise ValueError("an entry is listed more than once")
        return values


def recipe_name(params: EvolveParams) -> str:
    """The recipe whose parts the settings choose, or ``custom``."""
    chosen = {part: getattr(params, part) for part in PARTS}
    return next((recipe.name for recipe in RECIPES if recipe.parts() == chosen), CUSTOM)
