"""The operator interface and the registry of named operators.

An operator looks at one analysed sentence (and, optionally, the abstract it comes
from) and proposes zero or more edited sentences, each tagged with the operator and
the named rule that made it. Operators are deterministic: every random choice is the
caller's (:class:`scicon.rules.mutator.RuleMutator`), so the same sentence always
yields the same proposals in the same order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from scicon.records.base import TargetLabel
from scicon.rules.analysis import Analysis
from scicon.rules.context import AbstractContext


@dataclass(frozen=True)
class Proposal:
    text: str
    operator: str
    rule: str


class Operator(Protocol):
    name: str
    label: TargetLabel  # CONTRADICTION for negating operators, NON_CONTRADICTION for controls

    def propose(self, analysis: Analysis, context: AbstractContext | None) -> list[Proposal]: ...


@dataclass(frozen=True)
class FunctionOperator:
    """An operator made from a function ``(analysis, context) -> [(rule name, new text)]``."""

    name: str
    label: TargetLabel
    function: Callable[[Analysis, AbstractContext | None], list[tuple[str, str]]]
    description: str

    def propose(self, analysis: Analysis, context: AbstractContext | None) -> list[Proposal]:
        proposals, seen = [], {analysis.text}
        for rule, text in self.function(analysis, context):
            if text not in seen:
                seen.add(text)
                proposals.append(Proposal(text, self.name, rule))
        return proposals
