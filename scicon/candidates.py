"""One definition of a good rewrite, shared by every rewriter: EvoNLI's search (its rule
transformation, the ``grounded`` edit constraint and the ``fluency`` constraint) and the
negatives stage (its operators and ``negatives.filters``), so the rule negatives that the
build and the teacher learn from are made and checked exactly as a search candidate is.

- **Operators**: the contradiction operators that rewrite (``candidates.operators``),
  chosen by how often their edits truly contradict on gold dev (docs/negatives.md).

- **Grounded** (:mod:`scicon.grounding`): the edit lands on what the other sentence
  of the pair speaks to.
- **Fluent**: the rewrite is at most ``max_drop`` nats less likely than the sentence it
  was made from under a small causal language model (``candidates.fluency.language_model``,
  any in-process backbone). Summed over the sentence, so an edit that breaks the
  grammar after it ("higher mortality does not rate") pays for every word it disturbs.
  Measured against gold dev's ``garbled`` flags in docs/negatives.md.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from pydantic import Field

from scicon.backbones import load_backbone
from scicon.backbones.params import BackboneParams
from scicon.grounding import Grounding
from scicon.params import Section


class FluencyParams(Section):
    language_model: BackboneParams
    max_drop: float = Field(
        gt=0.0, description="nats a rewrite may lose against the sentence it was made from"
    )


class CandidateParams(Section):
    """``candidates`` in params.yaml."""

    operators: tuple[str, ...] = Field(
        min_length=1, description="contradiction operators of the rule rewriters (names of the registry)"
    )
    grounding: Grounding
    fluency: FluencyParams


class FluencyScorer:
    """Log-likelihood drop of rewrites under a language model, every call batched and cached."""

    def __init__(self, backbone, params: FluencyParams):
        self.backbone = backbone  # a CachedBackbone
        self.max_drop = params.max_drop

    def drops(self, originals: Sequence[str], rewrites: Sequence[str]) -> list[float]:
        """log P(original) − log P(rewrite), in nats, per pair (0 or less: as likely or more)."""
        texts = list(dict.fromkeys([*originals, *rewrites]))
        likelihood = dict(zip(texts, self.backbone.log_likelihood(texts), strict=True))
        return [likelihood[o] - likelihood[r] for o, r in zip(originals, rewrites, strict=True)]

    def passes(self, drop: float) -> bool:
        return drop <= self.max_drop


@contextlib.contextmanager
def loaded_fluency_scorer(params: FluencyParams) -> Iterator[FluencyScorer]:
    """The scorer with its language model loaded for the ``with`` block."""
    with load_backbone(params.language_model) as backbone:
        yield FluencyScorer(backbone, params)
