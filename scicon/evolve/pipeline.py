"""The evolve stage's library entry: choose the pairs, assemble the search, run it, summarise it.

The resume journal keeps a finished pair only when the digest of everything that
determines its result is unchanged: the stage's code (every module it imports, see
:mod:`scicon.codedeps`), the parameters that change results, the thresholds, and the
identity of every model the parts use. Any of those changing recomputes the pairs
instead of restoring results computed by older code or other models.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from scicon.assembly_context import AssemblyContext, BackboneLoader
from scicon.backbones import load_backbone as load_configured_backbone
from scicon.backbones.cache import CACHE_FILE, CallCache
from scicon.backbones.params import BackboneParams
from scicon.candidates import CandidateParams
from scicon.codedeps.closure import stage_code_digest
from scicon.codedeps.params_read import rerun_keys
from scicon.errors import NoWorkError
from scicon.evolve.assembly import Assembly, assemble, shared_settings
from scicon.evolve.metrics import evolve_metrics, success_by_generation
from scicon.evolve.params import EvolveParams, recipe_name
from scicon.evolve.recipes import PAPER
from scicon.evolve.runner import config_digest, run_searches
from scicon.fitted.filter_models import FilterModels
from scicon.goal import GOALS
from scicon.models import EMBEDDED_PREFIX
from scicon.params import Section, Thresholds, result_settings
from scicon.paths import cache_root
from scicon.records.corpus import Abstract
from scicon.records.evolve import MutatedPair, PairTrace
from scicon.records.pairs import Pair
from scicon.sampling import apportion
from scicon.seeds import derive_seed

log = logging.getLogger(__name__)

STAGE_SCRIPT = "stages/evolve.py"


@dataclass
class EvolveOutput:
    traces: list[PairTrace]
    accepted: list[MutatedPair]
    metrics: dict
    success_plot: list[dict]


def select_pairs(pairs: Sequence[Pair], params: EvolveParams) -> list[Pair]:
    """The pairs the search runs on: of the chosen kinds, at most ``max_pairs``, in file order.

    A sample keeps every kind in proportion (the pairs file lists all conclusion-conclusion
    pairs first, so its first N would hold no result-conclusion pair). Within a kind, pairs
    are ranked by a hash of (seed, pair id): raising ``max_pairs`` keeps the pairs already
    chosen, so a larger run resumes a smaller one's journal.
    """
    chosen = [pair for pair in pairs if pair.kind in params.pair_kinds]
    if params.max_pairs is None or len(chosen) <= params.max_pairs:
        return chosen
    by_kind: dict[str, list[Pair]] = {}
    for pair in chosen:
        by_kind.setdefault(pair.kind.value, []).append(pair)
    sizes = {kind: len(members) for kind, members in by_kind.items()}
    quotas = apportion(sizes, params.max_pairs, caps=sizes)
    keep: set[str] = set()
    for kind, members in by_kind.items():
        ranked = sorted(members, key=lambda pair: derive_seed(params.seed, "pair-sample", pair.pair_id))
        keep.update(pair.pair_id for pair in ranked[: quotas[kind]])
    return [pair for pair in chosen if pair.pair_id in keep]


def no_pairs_message(pairs: Sequence[Pair], params: EvolveParams) -> str:
    """Why the search has nothing to search, and what to change."""
    wanted = ", ".join(kind.value for kind in params.pair_kinds)
    if not pairs:
        return (
            "evolve: the pairs file holds no pair, so nothing was searched; "
            "reports/pairs.json says what the pairs stage skipped and why"
        )
    held = Counter(pair.kind.value for pair in pairs)
    counts = ", ".join(f"{kind} {count}" for kind, count in sorted(held.items()))
    return (
        f"evolve: no pair of evolve.pair_kinds [{wanted}] to search: the pairs file holds {counts}. "
        "Add a kind it holds to evolve.pair_kinds, or make pairs of the kind "
        "(pairs.kinds; for result_conclusion pairs.result_selector and pairs.llm_fallback)"
    )


# Keys that decide which pairs are searched, not how one pair's search ends.
PAIR_SELECTION_KEYS = ("pair_kinds", "max_pairs")


# The goal `--teacher FOLDER` chooses: it reads a classifier folder, in the setting its
# registry entry names (``folder_setting``).
TEACHER_GOAL = "classifier"


def with_teacher(params: EvolveParams, folder: str) -> EvolveParams:
    """The same search against a classifier folder: a self-training round's teacher is the
    student of the round before."""
    entry = GOALS.get(TEACHER_GOAL, "--teacher")
    settings = {part: dict(blocks) for part, blocks in params.settings.items()}
    goal = dict(settings.get("goal", {}))
    goal[TEACHER_GOAL] = {**(goal.get(TEACHER_GOAL) or {}), entry.facts.folder_setting: folder}
    settings["goal"] = goal
    # the parts are spelt out from here on: a recipe's goal would not be this one
    return params.model_copy(update={"recipe": None, "goal": TEACHER_GOAL, "settings": settings})


def results_digest(params: EvolveParams, shared: Mapping[str, object], assembly: Assembly) -> str:
    """Code, result-changing parameters, what the parts read outside their blocks (thresholds,
    shared sections) and the models the parts say they use: what a journal record must match."""
    keys = [key for key in rerun_keys(EvolveParams, "") if key not in PAIR_SELECTION_KEYS]
    results = params.model_dump(mode="json", include=set(keys))
    outside = {
        key: result_settings(value) if isinstance(value, Section) else value for key, value in shared.items()
    }
    return config_digest(stage_code_digest(STAGE_SCRIPT), results, outside, assembly.models())


def run_evolve(
    pairs: Sequence[Pair],
    abstracts: Sequence[Abstract],
    params: EvolveParams,
    thresholds: Thresholds,
    backbone_params: BackboneParams | None,
    *,
    journal: Path,
    candidates: CandidateParams | None = None,
    filter_models: FilterModels | None = None,
    load_backbone: BackboneLoader | None = None,
) -> EvolveOutput:
    selected = select_pairs(pairs, params)
    if not selected:
        raise NoWorkError(no_pairs_message(pairs, params))
    shared = shared_settings(thresholds, candidates=candidates, filter_models=filter_models)
    cache = CallCache(cache_root() / CACHE_FILE)
    context = AssemblyContext(
        seed=params.seed,
        backbone_params=backbone_params,
        load_backbone=load_backbone or load_configured_backbone,
        abstracts=abstracts,
        cache=cache,
    )
    recipe = recipe_name(params)
    try:
        assembly = assemble(params, shared, context)
        _warn_if_not_the_papers(recipe, backbone_params, context)
        started = time.perf_counter()
        by_pmid = {abstract.pmid: abstract for abstract in abstracts}
        result = run_searches(
            selected,
            assembly.searches,
            journal=journal,
            config_digest=results_digest(params, shared, assembly),
            recipe=recipe,
            seed=params.seed,
            abstracts=by_pmid,
            backbones=context.backbones,
            workers=params.workers,
        )
        metrics = evolve_metrics(
            result.traces,
            thresholds,
            time.perf_counter() - started,
            context.backbones,
            params.confidence_level,
        )
    finally:
        context.close()
        cache.close()
    metrics["recipe"] = recipe
    searched = Counter(pair.kind.value for pair in selected)
    metrics["pairs_per_kind"] = {kind.value: searched[kind.value] for kind in params.pair_kinds}
    metrics["resumed_pairs"] = result.resumed
    filters = assembly.reports()
    if filters:
        metrics["filters"] = filters
    return EvolveOutput(
        traces=result.traces,
        accepted=result.accepted,
        metrics=metrics,
        success_plot=success_by_generation(result.traces, assembly.max_generations),
    )


def _warn_if_not_the_papers(recipe: str, backbone: BackboneParams | None, context: AssemblyContext) -> None:
    """A user who points at a real model most likely wants the paper's method."""
    if context.backbones and backbone is not None and not backbone.model.startswith(EMBEDDED_PREFIX):
        if recipe != PAPER.name:
            log.warning(
                "evolve: backbone %s runs recipe %r, not the paper's (%r); "
                "`python -m scicon.profiles run paper` sets every part to the paper's",
                backbone.model,
                recipe,
                PAPER.name,
            )
