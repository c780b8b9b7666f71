"""Entailing sentence pairs from one abstract (EvoNLI paper, section 3.1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scicon.errors import ParamsError
from scicon.pairing.llm import ConclusionWriter, LlmResultSelector
from scicon.pairing.pairs import PairsResult, build_pairs
from scicon.pairing.params import PairsParams
from scicon.pairing.selectors import (
    RESULT_SELECTORS,
    EntailmentScorer,
    ResultSelector,
    Selection,
    SelectionRequest,
    make_cheap_selector,
)

if TYPE_CHECKING:
    from scicon.backbones import CachedBackbone

__all__ = [
    "RESULT_SELECTORS",
    "EntailmentScorer",
    "PairsResult",
    "ResultSelector",
    "Selection",
    "SelectionRequest",
    "build_pairs",
    "make_cheap_selector",
    "make_selector",
]


def make_selector(
    params: PairsParams,
    backbone: CachedBackbone | None = None,
    entailment_scorer: EntailmentScorer | None = None,
) -> tuple[ResultSelector, ConclusionWriter | None]:
    """The result selector and, when asked for, the conclusion writer that params describe;
    ``entailment_scorer`` is the judge for ``result_selector: entailment``."""
    needs_backbone = params.result_selector == "llm" or params.generate_missing_conclusions
    if needs_backbone and backbone is None:
        raise ParamsError("pairs: the llm result selector and conclusion generation need a backbone")
    writer = None
    if params.generate_missing_conclusions:
        writer = ConclusionWriter(backbone)
    if params.result_selector != "llm":
        return make_cheap_selector(params.result_selector, entailment_scorer), writer

    fallback = None if params.llm_fallback == "none" else make_cheap_selector(params.llm_fallback)
    return LlmResultSelector(backbone, fallback, params.llm_max_tokens), writer
