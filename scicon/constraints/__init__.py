"""Filters on candidate rewrites: same topic (SIMSCORE) and still a claim (CLAIMSCORE)."""

from scicon.constraints.base import Constraint, ConstraintCheck
from scicon.constraints.claim import LlmClaim, RoleClaim
from scicon.constraints.similarity import EmbeddingSimilarity, LlmSimilarity

__all__ = ["Constraint", "ConstraintCheck", "EmbeddingSimilarity", "LlmClaim", "LlmSimilarity", "RoleClaim"]
