"""Rule operators as an EvoNLI transformation: one call, N distinct candidates.

The evolve stage calls :meth:`RuleMutator.candidates` where it would otherwise ask the
backbone for word replacements (``transformation: rules``, or a mix of both). The
operators are deterministic; all randomness is the caller's ``random.Random``, so a
seeded search reproduces exactly. Heavy resources (WordNet, spaCy) are loaded once
per process on first use, so constructing a mutator is cheap.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from scicon.records.base import WordEdit
from scicon.records.corpus import Abstract
from scicon.rules.context import abstract_context
from scicon.rules.operator_sets import CONTRADICTION_OPERATORS, resolve, rule_operator
from scicon.rules.operators import Proposal
from scicon.rules.tagging import analyse
from scicon.textdiff import word_diff


@dataclass(frozen=True)
class RuleEdit:
    text: str
    operator: str
    edits: tuple[WordEdit, ...]
    rule: str = ""  # the named rule or table row of the operator that made it


class RuleMutator:
    """Draws mutated sentences from named rule operators (all contradiction operators by default)."""

    def __init__(self, operators: Sequence[str] | None = None):
        self.operators = resolve(CONTRADICTION_OPERATORS if operators is None else operators)
        # A search mutates the same sentence many times (every member of the first
        # generation starts from the original; a member nothing improved keeps its parent).
        self._proposals = functools.lru_cache(maxsize=4096)(self._propose)

    def __repr__(self) -> str:
        return f"RuleMutator(operators={list(self.operators)})"

    def proposals(self, sentence: str, context: Abstract | None = None) -> dict[str, list[Proposal]]:
        """Every operator's proposals for ``sentence``, in a fixed order (empty lists included)."""
        return {name: list(found) for name, found in self._proposals(sentence, context).items()}

    def _propose(self, sentence: str, context: Abstract | None) -> dict[str, tuple[Proposal, ...]]:
        analysis = analyse(sentence)
        borrowed = abstract_context(context) if context is not None else None
        return {name: tuple(rule_operator(name).propose(analysis, borrowed)) for name in self.operators}

    def candidates(
        self, sentence: str, n: int, rng: random.Random, context: Abstract | None = None
    ) -> list[RuleEdit]:
        """Up to ``n`` distinct mutations of ``sentence``, operators drawn uniformly with ``rng``."""
        return draw(sentence, self.proposals(sentence, context), n, rng)


def draw(sentence: str, proposals: dict[str, list[Proposal]], n: int, rng: random.Random) -> list[RuleEdit]:
    """Pick an operator uniformly among those with proposals left, then one of its proposals;
    repeat until ``n`` distinct texts. Spreading over operators keeps one prolific operator
    (numbers in a results sentence) from crowding out the rest."""
    pools = {name: list(items) for name, items in proposals.items() if items}
    chosen: list[RuleEdit] = []
    seen = {sentence}
    while len(chosen) < n and pools:
        name = rng.choice(sorted(pools))
        pool = pools[name]
        proposal = pool.pop(rng.randrange(len(pool)))
        if not pool:
            del pools[name]
        if proposal.text in seen:
            continue
        seen.add(proposal.text)
        chosen.append(
            RuleEdit(proposal.text, proposal.operator, word_diff(sentence, proposal.text), proposal.rule)
        )
    return chosen
