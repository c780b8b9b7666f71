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
    neighbours: int = Field(gt=0, description="nearest claims of other studies looked at per claim")
    min_same_topic: float = Field(
        ge=0.0,
        le=1.0,
        description="calibrated P(same topic) a candidate pair needs (the topic model of evolve)",
    )
    min_shared_terms: int = Field(
        ge=0, description="content terms (besides population words) two claims must share to be comparable"
    )
    not_comparable: Literal["mark", "drop"] = Field(
        description="a pair whose text shows a different population, dose or no shared term: "
        "kept and marked, or dropped (counted either way)"
    )
    threshold: float = Field(ge=0.0, le=1.0, description="mean calibrated P(contradiction) that flags a pair")
    hnsw_links: int = Field(ge=4, le=128, description="HNSW graph links per claim (faiss M)")
    hnsw_construction: int = Field(ge=8, description="HNSW candidate list while building (efConstruction)")
    hnsw_search: int = Field(ge=8, description="HNSW candidate list while searching (efSearch)")
    page_pairs: int = Field(gt=0, description="ranked pairs the HTML page shows")
    batch_size: int = Operational(gt=0, description="claim pairs per classifier forward pass")
