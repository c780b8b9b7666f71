"""Where the four parts of EvoNLI meet: goal, constraints, transformation, search.

``build_search`` turns the `evolve` params into a search, so every paper ablation
is a parameter value rather than a code path. ``PAPER_RECIPES`` names the settings
that reproduce each configuration of the paper's Table 2; a run records the name
of the recipe its settings match ("custom" otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence

from scicon.backbones import CachedBackbone, Sampling
from scicon.constraints import EmbeddingSimilarity, LlmClaim, LlmSimilarity, RoleClaim
from scicon.constraints.base import Constraint
from scicon.errors import ParamsError
from scicon.evolve.params import EvolveParams
from scicon.goal import LlmContradictionScorer, SequenceClassifierScorer, TargetConfidence
from scicon.params import Thresholds
from scicon.records.base import TargetLabel
from scicon.records.corpus import Abstract
from scicon.search import DirectPromptSearch, EvolutionarySearch, SearchSettings
from scicon.transformations import (
    LlmWordReplacement,
    MaskedLmReplacement,
    MixedTransformation,
    RandomWordReplacement,
)
from scicon.transformations.base import Transformation
from scicon.transformations.random_words import corpus_vocabulary

# Paper Table 2 rows → the evolve settings that differ from EvoNLI's own.
PAPER_RECIPES: dict[str, dict[str, object]] = {
    "evonli": {},
    "no_claim_check": {"claim": "off"},
    "no_similarity_check": {"similarity": "off"},
    "cross_encoder": {"goal": "classifier"},
    "random_replacement": {"transformation": "random"},
    "mlm_replacement": {"transformation": "mlm"},
    "direct_prompt": {"search": "direct_prompt"},
    "rule_replacement": {"transformation": "rules"},
}
_COMPONENTS = ("search", "transformation", "similarity", "claim", "goal")


def recipe_name(params: EvolveParams) -> str:
    defaults = EvolveParams()
    chosen = {key: getattr(params, key) for key in _COMPONENTS}
    for name, overrides in PAPER_RECIPES.items():
        expected = {key: overrides.get(key, getattr(defaults, key)) for key in _COMPONENTS}
        if chosen == expected:
            return name
    return "custom"


def needs_backbone(params: EvolveParams) -> bool:
    return (
        params.transformation in ("llm", "mixed")
        or params.similarity == "llm"
        or params.claim == "llm"
        or params.goal == "llm"
    )


class _Parts:
    """Builds each part once, so searches for several targets share models."""

    def __init__(
        self,
        params: EvolveParams,
        thresholds: Thresholds,
        backbone: CachedBackbone | None,
        abstracts: Sequence[Abstract],
    ):
        self.params, self.thresholds, self.backbone, self.abstracts = params, thresholds, backbone, abstracts
        if needs_backbone(params) and backbone is None:
            raise ParamsError("evolve: these settings use the backbone, but none was given")
        self.scorer = (
            LlmContradictionScorer(backbone)
            if params.goal == "llm"
            else SequenceClassifierScorer(params.classifier_model or "", params.contradiction_label)
        )
        self.constraints = self._constraints()
        self.transformation = self._transformation()

    def _constraints(self) -> list[Constraint]:
        params, thresholds = self.params, self.thresholds
        constraints: list[Constraint] = []
        if params.similarity == "llm":
            constraints.append(LlmSimilarity(self.backbone, thresholds.sim, params.similarity_reference))
        elif params.similarity == "embedding":
            constraints.append(
                EmbeddingSimilarity(
                    params.embedding_model,
                    thresholds.sim,
                    params.similarity_reference,
                    cache=self.backbone.cache if self.backbone is not None else None,
                )
            )
        if params.claim == "llm":
            constraints.append(LlmClaim(self.backbone, thresholds.claim))
        elif params.claim == "roles":
            constraints.append(RoleClaim(self.abstracts, thresholds.claim, seed=params.seed))
        return constraints

    def _transformation(self) -> Transformation:
        params = self.params
        if params.transformation in ("rules", "mixed"):
            from scicon.transformations.rules import RuleReplacement

            rules = RuleReplacement(params.rule_operators)
        if params.transformation == "rules":
            return rules
        if params.transformation == "random":
            return RandomWordReplacement(
                corpus_vocabulary(s.text for a in self.abstracts for s in a.sentences)
            )
        if params.transformation == "mlm":
            return MaskedLmReplacement(params.mlm_model)
        sampling = Sampling(
            temperature=params.temperature, max_tokens=params.max_new_tokens, top_p=params.top_p
        )
        llm = LlmWordReplacement(self.backbone, sampling)
        if params.transformation == "mixed":
            return MixedTransformation([(llm, 1.0 - params.rules_share), (rules, params.rules_share)])
        return llm

    def search(self, target: TargetLabel):
        goal = TargetConfidence(self.scorer, target, self.thresholds.target)
        if self.params.search == "direct_prompt":
            return DirectPromptSearch(goal, self.transformation)
        settings = SearchSettings(
            self.params.population_size, self.params.candidates_per_mutation, self.params.max_iterations
        )
        return EvolutionarySearch(goal, self.constraints, self.transformation, settings)


def build_searches(
    params: EvolveParams,
    thresholds: Thresholds,
    backbone: CachedBackbone | None,
    abstracts: Sequence[Abstract],
) -> dict[TargetLabel, EvolutionarySearch | DirectPromptSearch]:
    """One search per target label, sharing the models behind them."""
    parts = _Parts(params, thresholds, backbone, abstracts)
    return {target: parts.search(target) for target in params.targets}
