"""CLAIMSCORE: is the candidate still a claim (a finding, not background or methods)?

The paper asks the backbone (prompt E.3.6). The cheap alternative learns claims
from the corpus itself: section 3.1 of the paper uses the rhetorical roles because
RESULTS and CONCLUSIONS sentences carry claims while BACKGROUND and METHODS
sentences do not, so a TF-IDF + logistic-regression model of P(role is RESULTS or
CONCLUSIONS), trained on the ingested abstracts, measures how claim-like a sentence is.

That probability is not calibrated like a model's yes/no answer: on the demo corpus
the median CONCLUSIONS sentence gets 0.81, so an absolute threshold of 0.9 would
reject most original claims. What the filter guards against is a mutation that
destroys the claim, so the score is the share of the original sentence2's claim
probability the candidate keeps, min(1, P(candidate) / P(original)): 0.9 then means
"kept at least 90% of the claim".
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence

from pydantic import Field

from scicon.backbones.cache import CachedBackbone
from scicon.constraints import CONSTRAINTS
from scicon.constraints.base import (
    BACKBONE_COST,
    LOCAL_MODEL_COST,
    ConstraintCheck,
    ThresholdConstraint,
    answered,
)
from scicon.errors import InputFormatError
from scicon.evolve.context import AssemblyContext
from scicon.params import Section
from scicon.prompts import CLAIM_DETECTION
from scicon.records.corpus import Abstract, Role

log = logging.getLogger(__name__)

CLAIM_ROLES = frozenset({Role.RESULTS, Role.CONCLUSIONS})


class LlmClaimSettings(Section):
    backbone: dict | None = Field(description="overrides of the backbone section for this filter")


class LlmClaim(ThresholdConstraint):
    kind = "claim"
    name = "llm"
    cost = BACKBONE_COST

    def __init__(self, backbone: CachedBackbone, threshold: float, min_mass: float):
        self.backbone = backbone
        self.threshold = threshold
        self.min_mass = min_mass

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float | None]:
        prompts = [CLAIM_DETECTION.format(sentence=c.candidate) for c in checks]
        return answered(self.backbone.yes_no(prompts, kind=self.kind), self.min_mass)


@CONSTRAINTS.register(
    "claim.llm",
    settings=LlmClaimSettings,
    needs_backbone=True,
    description="the backbone answers 'contains a claim?' (prompt E.3.6)",
)
def llm_claim(settings: LlmClaimSettings, context: AssemblyContext) -> LlmClaim:
    backbone = context.backbone(settings.backbone, "evolve.settings.claim.llm.backbone")
    return LlmClaim(backbone, context.thresholds.claim, context.min_mass)


class RoleClaimSettings(Section):
    max_sentences: int = Field(gt=0, description="seeded sample of corpus sentences to train on")


class RoleClaim(ThresholdConstraint):
    kind = "claim"
    name = "roles"
    cost = LOCAL_MODEL_COST

    def __init__(self, abstracts: Sequence[Abstract], threshold: float, max_sentences: int, seed: int):
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline

        sentences = [sentence for abstract in abstracts for sentence in abstract.sentences]
        if len(sentences) > max_sentences:
            sentences = random.Random(seed).sample(sentences, max_sentences)
        labels = [sentence.role in CLAIM_ROLES for sentence in sentences]
        if len(set(labels)) < 2:
            raise InputFormatError(
                "abstracts", "the role-based claim scorer needs claim and non-claim sentences"
            )
        self.model = make_pipeline(
            TfidfVectorizer(ngram_range=(1, 2), min_df=1, sublinear_tf=True),
            LogisticRegression(max_iter=2000, C=4.0, random_state=seed),
        )
        self.model.fit([s.text for s in sentences], labels)
        self.threshold = threshold
        log.info("role-based claim scorer trained on %d sentences (%d claims)", len(labels), sum(labels))

    def claim_probabilities(self, sentences: Sequence[str]) -> list[float]:
        positive = list(self.model.classes_).index(True)
        return [float(p) for p in self.model.predict_proba(list(sentences))[:, positive]]

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float | None]:
        if not checks:
            return []
        originals = sorted({c.original for c in checks})
        reference = dict(zip(originals, self.claim_probabilities(originals), strict=True))
        candidates = self.claim_probabilities([c.candidate for c in checks])
        return [
            min(1.0, p / reference[c.original]) if reference[c.original] > 0 else 1.0
            for c, p in zip(checks, candidates, strict=True)
        ]


@CONSTRAINTS.register(
    "claim.roles",
    settings=RoleClaimSettings,
    description="claim-likeness learnt from the corpus' RESULTS/CONCLUSIONS roles",
)
def role_claim(settings: RoleClaimSettings, context: AssemblyContext) -> RoleClaim:
    return RoleClaim(context.abstracts, context.thresholds.claim, settings.max_sentences, context.seed)
