"""The search method: Algorithm 1 (evolutionary) and the direct-prompt baseline."""

from scicon.search.base import Accepted, SearchOutcome, SearchSettings
from scicon.search.direct import DirectPromptSearch
from scicon.search.evolutionary import EvolutionarySearch

__all__ = ["Accepted", "DirectPromptSearch", "EvolutionarySearch", "SearchOutcome", "SearchSettings"]
