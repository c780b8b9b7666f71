"""The rule operators by name and label, derived from the registry, and checks of listed names.

Params (``candidates.operators``, ``evolve.settings.transformation.rules.operators``)
name operators; :func:`resolve` checks such a list, and
:func:`rule_operator` gives the operator behind a name. Every set here is read from
the registrations in :mod:`scicon.rules.operators`, in the registry's (alphabetical)
order, so no list elsewhere has to name a new operator.
"""

from __future__ import annotations

import functools

from scicon.errors import ParamsError
from scicon.records.base import TargetLabel
from scicon.rules.operators import OPERATORS, RuleOperator


@functools.cache
def rule_operator(name: str) -> RuleOperator:
    """The registered operator ``name``; a ParamsError lists the known ones."""
    return RuleOperator.from_entry(OPERATORS.get(name))


def _named(label: TargetLabel, defaults_only: bool) -> tuple[str, ...]:
    operators = (rule_operator(name) for name in OPERATORS.names())
    return tuple(op.name for op in operators if op.label is label and (op.default or not defaults_only))


# The default contradiction operators (those registered with default=False, such as the
# modified-EDA baseline's "eda_antonym", are used only where named).
CONTRADICTION_OPERATORS: tuple[str, ...] = _named(TargetLabel.CONTRADICTION, defaults_only=True)
CONTROL_OPERATORS: tuple[str, ...] = _named(TargetLabel.NON_CONTRADICTION, defaults_only=False)


def resolve(names, what: str = "operators") -> tuple[str, ...]:
    """Validate operator names; a ParamsError names the unknown ones and lists the known."""
    names = tuple(names)
    unknown = [name for name in names if name not in OPERATORS]
    if unknown:
        raise ParamsError(f"unknown {what}: {', '.join(unknown)} (known: {', '.join(OPERATORS.names())})")
    if len(set(names)) != len(names):
        raise ParamsError(f"{what} listed more than once: {', '.join(names)}")
    return names
