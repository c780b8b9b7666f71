"""Rule operators: the registry of named operators, and what an operator is.

An operator looks at one analysed sentence (and, optionally, the abstract it comes
from) and returns ``[(rule name, edited sentence), ...]``, each edit named by the rule
or table row that made it. Operators are deterministic: every random choice is the
caller's (:class:`scicon.rules.mutator.RuleMutator`), so the same sentence always
yields the same proposals in the same order.

Each operator registers itself where its function is defined, with its label
(CONTRADICTION for a negating operator, NON_CONTRADICTION for a label-preserving
control) and a one-line description::

    @OPERATORS.register("negation_insert", label=TargetLabel.CONTRADICTION,
                        description="negate the main or claimed predicate")
    def insert_negation(analysis, context): ...

``default=False`` keeps a contradiction operator out of the default set
(:data:`scicon.rules.operator_sets.CONTRADICTION_OPERATORS`). Adding an operator is
its function, its decorator and its test; params.yaml and the EvoNLI transformation
refer to it by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import Field

from scicon.params import Section
from scicon.records.base import TargetLabel
from scicon.registry import Entry, Registry

if TYPE_CHECKING:
    from scicon.rules.context import AbstractContext
    from scicon.rules.tagging import Analysis

OperatorFunction = Callable[["Analysis", "AbstractContext | None"], list[tuple[str, str]]]


class OperatorFacts(Section):
    """What a rule operator states when it registers."""

    label: TargetLabel = Field(description="the label its edits are meant to carry")
    default: bool = Field(default=True, description="among the operators used when none are named")


OPERATORS: Registry[OperatorFunction] = Registry("rule operator", package=__name__, facts=OperatorFacts)


@dataclass(frozen=True)
class Proposal:
    text: str
    operator: str
    rule: str


@dataclass(frozen=True)
class RuleOperator:
    """A registered operator function with its name, label and description."""

    name: str
    label: TargetLabel
    function: OperatorFunction
    description: str
    default: bool = True

    @classmethod
    def from_entry(cls, entry: Entry[OperatorFunction]) -> RuleOperator:
        return cls(entry.name, entry.facts.label, entry.factory, entry.description, entry.facts.default)

    def propose(self, analysis: Analysis, context: AbstractContext | None) -> list[Proposal]:
        """The operator's distinct edits of the sentence, in the operator's order."""
        proposals, seen = [], {analysis.text}
        for rule, text in self.function(analysis, context):
            if text not in seen:
                seen.add(text)
                proposals.append(Proposal(text, self.name, rule))
        return proposals
