"""Evolve params from params.yaml with overrides, and searches assembled on a test backend."""

from __future__ import annotations

from collections.abc import Sequence

from scicon.assembly_context import AssemblyContext
from scicon.backbones.cache import CachedBackbone
from scicon.candidates import CandidateParams
from scicon.evolve.assembly import build_searches, shared_settings, validated_settings
from scicon.evolve.params import EvolveParams
from scicon.fitted.filter_models import FilterModels
from scicon.params import Thresholds
from scicon.records.corpus import Abstract
from tests.params_defaults import section, section_values

# A scripted backend scores no log-likelihoods and the fixtures' sentences share few words, so
# searches here leave the candidate checks out unless a test asks for them (tests of the
# checks: test_candidates.py).
WITHOUT_CANDIDATE_CHECKS = {
    "fluency": "off",
    "edits": [name for name in section_values("evolve")["edits"] if name != "grounded"],
}


def evolve_params(settings: dict | None = None, **overrides) -> EvolveParams:
    """params.yaml's evolve section with ``overrides``; ``settings`` merged per part and component."""
    merged = {part: dict(blocks) for part, blocks in section_values("evolve")["settings"].items()}
    for part, blocks in (settings or {}).items():
        for name, values in blocks.items():
            merged.setdefault(part, {})[name] = {**(merged.get(part, {}).get(name) or {}), **values}
    return section("evolve", EvolveParams, settings=merged, **{**WITHOUT_CANDIDATE_CHECKS, **overrides})


def shared() -> dict[str, object]:
    """What the parts read outside their blocks: params.yaml's shared sections."""
    return shared_settings(filter_models=section("filter_models", FilterModels))


def assemble(
    params: EvolveParams,
    thresholds: Thresholds,
    backend=None,
    abstracts: Sequence[Abstract] = (),
    min_mass: float = 0.0,
):
    """The searches of ``params``, every backbone answered by ``backend``; and the context."""
    backbone = CachedBackbone(backend) if backend is not None else None
    context = AssemblyContext(
        thresholds=thresholds,
        abstracts=abstracts,
        seed=params.seed,
        min_mass=min_mass,
        max_words_changed=params.max_words_changed,
        backbone_params=section("backbone", _backbone_params()) if backend is not None else None,
        load_backbone=(lambda params: backbone) if backbone is not None else None,
        candidates=section("candidates", CandidateParams),
        settings=validated_settings(params, shared()),
    )
    return build_searches(params, context), context


def _backbone_params():
    from scicon.backbones.params import BackboneParams

    return BackboneParams
