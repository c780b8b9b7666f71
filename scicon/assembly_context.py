"""The services a component factory gets when the evolve stage assembles a search.

Every registered part of EvoNLI — transformation, constraint, goal, search — is built by
its factory from its settings (its block under ``evolve.settings`` in params.yaml, with what
its registration ``reads`` elsewhere: a threshold, a shared section) and this context, which
holds services only: the seed, the ingested abstracts, the call cache, the backbones, and a
builder of the other parts (for a part made of parts). A part that calls a foundation model
asks the context for one with :meth:`AssemblyContext.backbone`, optionally naming its own
model as overrides of the ``backbone`` section (the paper's decoupled variant: "Mistral 7B
gen+filter, Qwen2.5 7B cls"); identical configurations share one loaded model. A part states
the models it uses itself (:func:`declared_models`), and the evolve journal folds them into
its digest: a pair is resumed only with the same code, settings and models.

It lives below the parts (goal, constraints, transformations, search) so that they can be
handed one without importing the evolve pipeline that assembles them (docs/development.md,
"Package map").
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import Field

from scicon.backbones import load_backbone
from scicon.backbones.cache import CachedBackbone, CallCache
from scicon.backbones.params import BackboneParams, merged_backbone_params
from scicon.errors import ParamsError
from scicon.params import Section
from scicon.records.corpus import Abstract

BackboneLoader = Callable[[BackboneParams], CachedBackbone]
# (slot, name, params key that names it) -> the part, built from its validated settings
PartBuilder = Callable[[str, str, str], object]


class PartFacts(Section):
    """What a part states when it registers, beyond its settings model."""

    reads: dict[str, str] = Field(
        default_factory=dict,
        description="settings filled from params outside the part's block, setting -> dotted key "
        "(a threshold such as sim, or a section every stage that needs it declares, such as "
        "filter_models.topic_model)",
    )


def declared_models(part: object) -> dict[str, object]:
    """The models a part says it uses (its ``models()``: label -> identity, such as a weights
    digest), for the resume digest; none for a part that has no ``models``."""
    models = getattr(part, "models", None)
    return dict(models()) if callable(models) else {}


def models_of(named_parts: Iterable[tuple[str, object]]) -> dict[str, object]:
    """The models several parts say they use, each label prefixed with its part's name."""
    return {
        f"{name}:{label}": identity
        for name, part in named_parts
        for label, identity in declared_models(part).items()
    }


def _default_loader(params: BackboneParams) -> CachedBackbone:
    return load_backbone(params)


@dataclass
class AssemblyContext:
    seed: int
    backbone_params: BackboneParams | None
    load_backbone: BackboneLoader | None
    abstracts: Sequence[Abstract] = ()
    cache: CallCache | None = None
    # the evolve assembly's: a part made of parts (the mixed transformation) builds them with it
    build_part: PartBuilder | None = None
    _backbones: dict[str, CachedBackbone] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def backbone(self, overrides: dict | None = None, key: str = "backbone") -> CachedBackbone:
        """The backbone of the ``backbone`` section, or of that section with ``overrides`` merged in."""
        if self.backbone_params is None or self.load_backbone is None:
            raise ParamsError(f"{key}: this part needs a backbone, but none was configured")
        return self.model(merged_backbone_params(self.backbone_params, overrides, key))

    def model(self, params: BackboneParams) -> CachedBackbone:
        """A model described in full (e.g. the fluency constraint's language model), loaded once."""
        name = json.dumps(params.model_dump(mode="json"), sort_keys=True)
        loader = self.load_backbone or _default_loader
        with self._lock:
            if name not in self._backbones:
                self._backbones[name] = loader(params)
            return self._backbones[name]

    def part(self, slot: str, name: str, key: str) -> object:
        """Another registered part (of ``slot``, by ``name``, which params ``key`` names), built
        with its validated settings."""
        if self.build_part is None:
            raise ParamsError(f"{key}: parts made of parts are built only when the evolve stage assembles")
        return self.build_part(slot, name, key)

    @property
    def backbones(self) -> list[CachedBackbone]:
        return list(self._backbones.values())

    def close(self) -> None:
        for backbone in self._backbones.values():
            backbone.close()
        self._backbones.clear()


def settings_read(facts: object) -> Mapping[str, str]:
    """The settings a registration reads outside its block (:attr:`PartFacts.reads`)."""
    return facts.reads if isinstance(facts, PartFacts) else {}
