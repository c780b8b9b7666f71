"""What a component factory gets when the evolve stage assembles a search.

Every registered part of EvoNLI — transformation, constraint, goal, search — is built by
its factory from its settings (its block under ``evolve.settings`` in params.yaml) and
this context: the thresholds, the ingested abstracts, the seed, the yes/no answer floor
(``min_mass``), the call cache, and the backbones. A part that calls a foundation model
asks the context for one with :meth:`AssemblyContext.backbone`, optionally naming its own
model as overrides of the ``backbone`` section (the paper's decoupled variant: "Mistral 7B
gen+filter, Qwen2.5 7B cls"); identical configurations share one loaded model. The
context also collects the identity of every model it hands out, which the evolve journal
folds into its digest: a pair is resumed only with the same code, settings and models.

It lives below the parts (goal, constraints, transformations, search) so that they can be
handed one without importing the evolve pipeline that assembles them (docs/development.md,
"Package map").
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import Field

from scicon.backbones import load_backbone
from scicon.backbones.cache import CachedBackbone, CallCache
from scicon.backbones.params import BackboneParams, merged_backbone_params
from scicon.candidates import CandidateParams
from scicon.errors import ParamsError
from scicon.params import Section, Thresholds
from scicon.records.corpus import Abstract
from scicon.registry import Entry

BackboneLoader = Callable[[BackboneParams], CachedBackbone]


class PartFacts(Section):
    """What a part states when it registers, beyond its settings model."""

    reads: dict[str, str] = Field(
        default_factory=dict,
        description="settings filled from params outside the part's block, setting -> dotted key "
        "(a section every stage that needs it declares, such as filter_models.topic_model)",
    )


def settings_read(facts: object) -> Mapping[str, str]:
    """The settings a registration reads outside its block (:attr:`PartFacts.reads`)."""
    return facts.reads if isinstance(facts, PartFacts) else {}


def _default_loader(params: BackboneParams) -> CachedBackbone:
    return load_backbone(params)


@dataclass
class AssemblyContext:
    seed: int
    min_mass: float  # a yes/no answer below this probability mass is no answer
    backbone_params: BackboneParams | None
    load_backbone: BackboneLoader | None
    # What the search's filters and transformations read, left out where a goal is built
    # alone (the evaluate stage's zero-shot teacher, which must not depend on evolve's thresholds).
    thresholds: Thresholds | None = None
    abstracts: Sequence[Abstract] = ()
    # edit constraint: share of a parent's words a candidate may change
    max_words_changed: float | None = None
    cache: CallCache | None = None
    candidates: CandidateParams | None = (
        None  # what makes a good rewrite (grounding, fluency): params candidates
    )
    # validated settings by (slot, name): every block in params and every chosen component's
    # (see scicon.evolve.assembly); read them with component_settings
    settings: dict[tuple[str, str], object] = field(default_factory=dict)
    _backbones: dict[str, CachedBackbone] = field(default_factory=dict)
    _models: dict[str, object] = field(default_factory=dict)
    reports: dict[str, dict] = field(default_factory=dict)  # how good each fitted part is, for the metrics
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def backbone(self, overrides: dict | None = None, key: str = "backbone") -> CachedBackbone:
        """The backbone of the ``backbone`` section, or of that section with ``overrides`` merged in."""
        if self.backbone_params is None or self.load_backbone is None:
            raise ParamsError(f"{key}: this part needs a backbone, but none was configured")
        return self.model(merged_backbone_params(self.backbone_params, overrides, key))

    def component_settings(self, slot: str, name: str, entry: Entry) -> object:
        """The settings of a component being built: its block's, validated up front, or None
        for one without settings. One with settings and no block stops here, naming the key:
        the evolve stage checks the components its params choose before building any, but
        not those another's settings choose (a mixed transformation's parts)."""
        if (slot, name) in self.settings:
            return self.settings[(slot, name)]
        return entry.validate_settings(None, f"evolve.settings.{slot}.{name}")

    def threshold(self, name: str, key: str) -> float:
        """Top-level threshold ``name`` (``sim``, ``claim``, ``target``) for the part of params ``key``."""
        if self.thresholds is None:
            raise ParamsError(f"{key} needs the thresholds (sim, claim, target), but none were given")
        return getattr(self.thresholds, name)

    def candidate_checks(self, key: str) -> CandidateParams:
        """The ``candidates`` section, for a part (named by its params ``key``) that applies its checks."""
        if self.candidates is None:
            raise ParamsError(f"{key} needs the candidates section of params.yaml")
        return self.candidates

    def model(self, params: BackboneParams) -> CachedBackbone:
        """A model described in full (e.g. the fluency constraint's language model), loaded once."""
        name = json.dumps(params.model_dump(mode="json"), sort_keys=True)
        loader = self.load_backbone or _default_loader
        with self._lock:
            if name not in self._backbones:
                backbone = loader(params)
                self._backbones[name] = backbone
                self.record_model(f"backbone:{params.model}", backbone.identity_digest)
            return self._backbones[name]

    @property
    def backbones(self) -> list[CachedBackbone]:
        return list(self._backbones.values())

    def record_model(self, label: str, identity: object) -> None:
        """Note a model a part uses (weights digest, served name...), for the resume digest."""
        self._models[label] = identity

    def record_report(self, part: str, report: dict) -> None:
        """A fitted part's quality (e.g. the topic model's held-out ROC-AUC), for reports/evolve.json."""
        self.reports[part] = report

    def models_digest(self) -> str:
        text = json.dumps(self._models, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def close(self) -> None:
        for backbone in self._backbones.values():
            backbone.close()
        self._backbones.clear()
