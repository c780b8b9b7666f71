"""Evolve params from params.yaml with overrides, and searches assembled on a test backend."""

from __future__ import annotations

from collections.abc import Sequence

from scicon.assembly_context import AssemblyContext
from scicon.backbones.cache import CachedBackbone
from scicon.backbones.params import BackboneParams
from scicon.candidates import CandidateParams
from scicon.evolve.assembly import Assembly, shared_settings
from scicon.evolve.assembly import assemble as assemble_searches
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


def search_sizes(**sizes) -> dict:
    """``settings`` for :func:`evolve_params` that change Algorithm 1's sizes (the evolutionary
    search's block), the rest left as params.yaml gives them."""
    return {"search": {"evolutionary": sizes}}


def shared(thresholds: Thresholds, **sections) -> dict[str, object]:
    """What the parts read outside their blocks: ``thresholds`` and params.yaml's shared sections,
    or ``sections`` in their place (None: the section left out)."""
    defaults = {
        "candidates": section("candidates", CandidateParams),
        "filter_models": section("filter_models", FilterModels),
    }
    return shared_settings(thresholds, **{**defaults, **sections})


def context(
    backend=None, abstracts: Sequence[Abstract] = (), seed: int = 0, backbone: CachedBackbone | None = None
) -> AssemblyContext:
    """The services a part is built with, every backbone answered by ``backend`` (or ``backbone``)."""
    if backend is not None:
        backbone = CachedBackbone(backend)
    return AssemblyContext(
        seed=seed,
        backbone_params=section("backbone", BackboneParams) if backbone is not None else None,
        load_backbone=(lambda params: backbone) if backbone is not None else None,
        abstracts=abstracts,
    )


def assemble(
    params: EvolveParams,
    thresholds: Thresholds,
    backend=None,
    abstracts: Sequence[Abstract] = (),
    min_mass: float = 0.0,
) -> tuple[dict, Assembly]:
    """The searches of ``params``, every backbone answered by ``backend`` and every yes/no part
    keeping answers of at least ``min_mass``; and what they were assembled from."""
    settings = {
        part: {
            name: {**block, "min_mass": min_mass}
            if isinstance(block, dict) and "min_mass" in block
            else block
            for name, block in blocks.items()
        }
        for part, blocks in params.settings.items()
    }
    params = params.model_copy(update={"settings": settings})
    assembly = assemble_searches(params, shared(thresholds), context(backend, abstracts, params.seed))
    return assembly.searches, assembly
