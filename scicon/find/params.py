"""Parameters of the finder (`find` in params.yaml)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from scicon.params import Operational, Section
from scicon.records.corpus import Role


class FindParams(Section):
    classifier: str = Field(description="classifier folder that scores P(contradiction) of a claim pair")
    claim_roles: tuple[Role, ...] = Field(
        min_length=1,
        description="sentences of an abstract that are its claims (its results are the evidence)",
    )
    min_claim: float = Field(
        ge=0.0,
        le=1.0,
        description="calibrated P(claim) a claim needs (filter_models.claim_model, with "
        "find.claim_model's changes); one below it is left out and counted",
    )
    claim_model: dict = Field(
        description="settings of filter_models.claim_model the finder's claim model changes"
    )
    neighbours: int = Field(gt=0, description="nearest claims of other studies looked at per claim")
    shared_term_route: int = Field(
        ge=0,
        description="claims of other studies sharing at least this many distinctive content terms are "
        "candidates too, whatever their embeddings say (0: no such route)",
    )
    distinctive_term_claims: int = Field(
        ge=2,
        description="a content term used by more claims than this is not distinctive (it routes no pair)",
    )
    min_same_topic: float = Field(
        ge=0.0,
        le=1.0,
        description="calibrated P(same topic) a candidate pair needs (filter_models.topic_model)",
    )
    min_shared_terms: int = Field(
        ge=0, description="content terms (besides population words) two claims must share to be comparable"
    )
    not_comparable: Literal["mark", "drop"] = Field(
        description="a pair whose text shows a different population, dose or no shared term: "
        "kept and marked, or dropped (counted either way)"
    )
    flag_rate: float = Field(
        gt=0.0,
        le=1.0,
        description="share of the scored pairs flagged, the best-scored: the score where it falls is the "
        "run's flag threshold (reported), the same share whichever classifier scores",
    )
    stance_exact_up_to: int = Field(
        ge=2, le=18, description="question clusters of up to this many claims are split exactly (every split)"
    )
    stance_min_confidence: float = Field(
        ge=0.5, le=1.0, description="a claim less sure of its side than this says neither"
    )
    hnsw_links: int = Field(ge=4, le=128, description="HNSW graph links per claim (faiss M)")
    hnsw_construction: int = Field(ge=8, description="HNSW candidate list while building (efConstruction)")
    hnsw_search: int = Field(ge=8, description="HNSW candidate list while searching (efSearch)")
    verifier: str = Field(
        description="a second classifier folder that re-reads the best-ranked scored pairs, plain, in both "
        "orders (the verifier stage's; marked untrained: no re-read, the classifier's ranking stands)"
    )
    verifier_top: int = Field(
        ge=0,
        description="best-ranked scored pairs the verifier re-reads (0: none); the rest keep their order",
    )
    verifier_rank: Literal["verifier", "mean"] = Field(
        description="what the re-read pairs are ranked by: the verifier's score, or the mean of it and "
        "the classifier's"
    )
    page_pairs: int = Field(gt=0, description="ranked pairs the HTML page shows")
    batch_size: int = Operational(gt=0, description="claim pairs per classifier forward pass")
