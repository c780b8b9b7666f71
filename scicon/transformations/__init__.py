"""REPLACEWORDS of Algorithm 1 and its ablations: how candidate rewrites are proposed."""

from scicon.transformations.base import MutationRequest, Transformation
from scicon.transformations.llm import LlmWordReplacement
from scicon.transformations.masked_lm import MaskedLmReplacement
from scicon.transformations.mixed import MixedTransformation
from scicon.transformations.random_words import RandomWordReplacement

__all__ = [
    "LlmWordReplacement",
    "MaskedLmReplacement",
    "MixedTransformation",
    "MutationRequest",
    "RandomWordReplacement",
    "Transformation",
]
