"""Where the four parts of EvoNLI meet: goal, constraints, transformation, search.

Each part is chosen by name in the `evolve` params (``search``, ``transformation``,
``similarity``, ``claim``, ``fluency``, ``goal``; ``off`` switches a filter off) and built by its
registered factory from its settings block ``evolve.settings.<slot>.<name>``, with what its
registration ``reads`` outside the block filled in (a threshold such as ``sim``, a section
such as ``filter_models``; :func:`shared_settings`), so a part reads nothing else. Only a
chosen component that has settings needs its block: a new component without settings is
its module alone, and one with settings adds its block when a run chooses it. Every block
present is validated, used or not, so a misspelt key anywhere stops the stage before any
work. Only this module knows all four parts; an ablation is a parameter value, never a
code path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel

from scicon.assembly_context import AssemblyContext, models_of, settings_read
from scicon.constraints import CONSTRAINTS
from scicon.errors import ParamsError
from scicon.evolve.params import EvolveParams
from scicon.goal import GOALS
from scicon.goal.base import TargetConfidence
from scicon.params import Section, Thresholds
from scicon.records.base import TargetLabel
from scicon.registry import Entry, Registry
from scicon.search import SEARCHES
from scicon.search.base import CandidateChecks, Search, SearchParts
from scicon.transformations import TRANSFORMATIONS

OFF = "off"


@dataclass(frozen=True)
class Slot:
    """A params key that chooses one component of a registry."""

    key: str
    registry: Registry
    prefix: str = ""  # constraints are registered as "<slot>.<name>"
    can_be_off: bool = False

    def entries(self) -> list[Entry]:
        return [entry for entry in self.registry if entry.name.startswith(self.prefix)]

    def entry(self, name: str) -> Entry:
        return self.registry.get(self.prefix + name, f"evolve.{self.key}")

    def short_name(self, entry: Entry) -> str:
        return entry.name[len(self.prefix) :]


SLOTS = (
    Slot("search", SEARCHES),
    Slot("transformation", TRANSFORMATIONS),
    Slot("similarity", CONSTRAINTS, "similarity.", can_be_off=True),
    Slot("claim", CONSTRAINTS, "claim.", can_be_off=True),
    Slot("fluency", CONSTRAINTS, "fluency.", can_be_off=True),
    Slot("goal", GOALS),
)
EDITS = Slot("edits", CONSTRAINTS, "edit.")  # a list of names, all applied
SLOT = {slot.key: slot for slot in SLOTS}


def chosen_parts(params: EvolveParams) -> dict[str, str]:
    return {slot.key: getattr(params, slot.key) for slot in SLOTS}


def shared_settings(thresholds: Thresholds, **sections: Section | None) -> dict[str, object]:
    """What parts read outside their blocks (their registrations' ``reads``), by params key:
    the thresholds (top-level ``sim``, ``claim``, ``target``) and every key of the sections the
    evolve stage declares besides its own. The one place a part's threshold comes from."""
    shared: dict[str, object] = dict(thresholds)
    for name, section in sections.items():
        if section is not None:
            shared.update({f"{name}.{key}": getattr(section, key) for key in type(section).model_fields})
    return shared


def validated_settings(
    params: EvolveParams, shared: Mapping[str, object]
) -> dict[tuple[str, str], BaseModel | None]:
    """The settings of every block in params and of every chosen component, keyed by (slot,
    name), with what each reads outside its block taken from ``shared``; a chosen component
    with settings and no block stops here. Errors name the key."""
    unknown_slots = set(params.settings) - set(SLOT) - {EDITS.key}
    if unknown_slots:
        raise ParamsError(
            f"evolve.settings: unknown part(s) {', '.join(sorted(unknown_slots))} (parts: {', '.join(SLOT)})"
        )
    settings: dict[tuple[str, str], BaseModel | None] = {}
    for slot in (*SLOTS, EDITS):
        blocks: Mapping[str, object] = params.settings.get(slot.key) or {}
        names = {slot.short_name(entry) for entry in slot.entries()}
        for extra in sorted(set(blocks) - names):
            raise ParamsError(
                f"evolve.settings.{slot.key}.{extra}: no {slot.key} {extra!r} "
                f"(known: {', '.join(sorted(names))})"
            )
        for name, values in blocks.items():
            key = f"evolve.settings.{slot.key}.{name}"
            settings[(slot.key, name)] = _with_reads(slot.entry(name), values, key, shared)
    for slot_key, name in _chosen_components(params):
        if (slot_key, name) not in settings:
            key = f"evolve.settings.{slot_key}.{name}"
            settings[(slot_key, name)] = _with_reads(_slot(slot_key).entry(name), None, key, shared)
    return settings


def _with_reads(entry: Entry, block: object, key: str, shared: Mapping[str, object]) -> BaseModel | None:
    """An entry's settings from its block, with the settings it reads elsewhere filled in: one
    with settings of its own needs its block, one whose every setting is read elsewhere none."""
    reads = settings_read(entry.facts)
    own = set(entry.settings.model_fields) - set(reads) if entry.settings is not None else set()
    if not reads or (block is None and own):
        return entry.validate_settings(block, key)
    values = dict(block) if isinstance(block, Mapping) else {}
    for setting, source in reads.items():
        if setting in values:
            raise ParamsError(
                f"{key}.{setting}: {entry.kind} {entry.name!r} reads it from {source}; set it there"
            )
        if source not in shared:
            raise ParamsError(f"{key}: {entry.kind} {entry.name!r} reads {source}, which was not given")
        values[setting] = shared[source]
    return entry.validate_settings(values, key)


def _chosen_components(params: EvolveParams) -> list[tuple[str, str]]:
    """(slot, name) of every component the params choose; a mixed transformation's parts are
    looked up when it is built (:meth:`AssemblyContext.part`)."""
    chosen = [
        (key, name)
        for key, name in chosen_parts(params).items()
        if not (SLOT[key].can_be_off and name == OFF)
    ]
    return chosen + [(EDITS.key, name) for name in params.edits]


def _slot(key: str) -> Slot:
    return EDITS if key == EDITS.key else SLOT[key]


def check_combination(params: EvolveParams) -> None:
    """Reject choices that cannot mean what they say (an entry's ``requires``)."""
    chosen = chosen_parts(params)
    for slot in SLOTS:
        if slot.can_be_off and chosen[slot.key] == OFF:
            continue
        entry = slot.entry(chosen[slot.key])
        for other, allowed in entry.requires.items():
            if chosen.get(other) not in allowed:
                raise ParamsError(
                    f"evolve.{slot.key}: {chosen[slot.key]!r} needs evolve.{other} to be one of "
                    f"{', '.join(allowed)} (got {chosen.get(other)!r})"
                )


def check_settings(params: EvolveParams, thresholds: Thresholds, **sections: Section | None) -> None:
    """What :func:`assemble` checks before it builds any part, with nothing built: the parts'
    combination and every component block, filled in from ``thresholds`` and ``sections`` (the
    other sections the stage reads). A profile is checked with it before any stage runs."""
    check_combination(params)
    validated_settings(params, shared_settings(thresholds, **sections))


@dataclass(frozen=True)
class Assembly:
    """The searches of one run and the parts they were made of, each by its params key."""

    searches: dict[TargetLabel, Search]
    parts: dict[str, object]
    context: AssemblyContext

    def models(self) -> dict[str, object]:
        """Every model the parts say they use, by part and label: what a resumed pair must share."""
        return models_of(self.parts.items())

    def reports(self) -> dict[str, dict]:
        """The held-out quality of each fitted constraint, by its kind (``similarity``, ``claim``)."""
        return {
            part.kind: part.report
            for part in self.parts.values()
            if getattr(part, "report", None) is not None
        }

    @property
    def backbones(self):
        return self.context.backbones

    @property
    def max_generations(self) -> int:
        """The most generations a pair's search makes, whatever its target."""
        return max(search.max_generations for search in self.searches.values())


def assemble(params: EvolveParams, shared: Mapping[str, object], context: AssemblyContext) -> Assembly:
    """One search per target label, sharing the parts and the models behind them. Every
    setting is validated before any part is built; ``shared`` holds what parts read outside
    their blocks (:func:`shared_settings`)."""
    check_combination(params)
    settings = validated_settings(params, shared)

    def build(slot_key: str, name: str, key: str):
        entry = _slot(slot_key).registry.get(_slot(slot_key).prefix + name, key)
        if (slot_key, name) not in settings:
            settings[(slot_key, name)] = _with_reads(
                entry, None, f"evolve.settings.{slot_key}.{name}", shared
            )
        return entry.factory(settings[(slot_key, name)], context)

    context.build_part = build
    parts: dict[str, object] = {"goal": build("goal", params.goal, "evolve.goal")}
    for key in ("similarity", "claim", "fluency"):
        if getattr(params, key) != OFF:
            parts[key] = build(key, getattr(params, key), f"evolve.{key}")
    for name in params.edits:
        parts[f"edits.{name}"] = build(EDITS.key, name, "evolve.edits")
    parts["transformation"] = build("transformation", params.transformation, "evolve.transformation")
    constraints = [parts[key] for key in ("similarity", "claim", "fluency") if key in parts]
    edits = [parts[f"edits.{name}"] for name in params.edits]
    search = SLOT["search"].entry(params.search)
    searches = {}
    for target in params.targets:
        goal = TargetConfidence(parts["goal"], target, shared["target"])
        search_parts = SearchParts(CandidateChecks(goal, edits, constraints), parts["transformation"])
        searches[target] = search.factory(settings[("search", params.search)], search_parts)
    return Assembly(searches, parts, context)
