"""Rule-based negatives: WordNet and scispaCy operators (DESIGN §5).

``RuleMutator`` is the EvoNLI transformation; :mod:`scicon.rules.generators` builds
the `negatives` stage's dataset; :mod:`scicon.rules.registry` names every operator.
"""

from scicon.rules.mutator import RuleEdit, RuleMutator
from scicon.rules.registry import CONTRADICTION_OPERATORS, CONTROL_OPERATORS, OPERATORS

__all__ = ["CONTRADICTION_OPERATORS", "CONTROL_OPERATORS", "OPERATORS", "RuleEdit", "RuleMutator"]
