"""Rule-based negatives: WordNet and scispaCy operators (docs/negatives.md).

``RuleMutator`` is the EvoNLI transformation; :mod:`scicon.rules.generators` builds
the `negatives` stage's dataset; the operators register themselves in
:mod:`scicon.rules.operators`, and :mod:`scicon.rules.operator_sets` names the
default sets. Sentences are analysed by :mod:`scicon.rules.tagging`, edited with
:mod:`scicon.rules.edits` and :mod:`scicon.rules.inflection`, and checked for
negation with :mod:`scicon.rules.negation_scope`.
"""

from scicon.rules.mutator import RuleEdit, RuleMutator
from scicon.rules.operator_sets import CONTRADICTION_OPERATORS, CONTROL_OPERATORS
from scicon.rules.operators import OPERATORS

__all__ = ["CONTRADICTION_OPERATORS", "CONTROL_OPERATORS", "OPERATORS", "RuleEdit", "RuleMutator"]
