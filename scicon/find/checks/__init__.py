"""Comparability checks: what in two claims' text shows they answer different questions.

The paper's main false positives are pairs about different questions. Each check looks at
the two texts for one kind of mismatch and returns what differs, one detail per mismatch
(empty when it sees none); the finder records each as a
:class:`~scicon.records.find.NotComparable` of the check's kind, and the run's report counts
reasons by kind. A check registers itself in its own module of this package::

    @COMPARABILITY_CHECKS.register("dose", description="a different dose in the same unit")
    def dose(params: FindParams) -> Check: ...

Every registered check runs on every candidate pair (the registry imports each module of
this package), so a new check is its module and its test: no list elsewhere names it, and
its reasons appear in the report under its name. Its factory receives the ``find``
settings, for a check that has one (``min_shared_terms``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from scicon.find.params import FindParams
from scicon.find.terms import shared_terms as terms_in_common  # the name of a check module here
from scicon.records.find import NotComparable
from scicon.registry import Registry

Check = Callable[[str, str], Iterable[str]]  # two claims' texts -> what differs, one detail each


class CheckFactory(Protocol):
    def __call__(self, params: FindParams) -> Check: ...


COMPARABILITY_CHECKS: Registry[CheckFactory] = Registry("comparability check", package=__name__)


@dataclass(frozen=True)
class Comparison:
    shared_terms: tuple[str, ...]
    not_comparable: tuple[NotComparable, ...]  # empty when nothing shows a mismatch

    @property
    def comparable(self) -> bool:
        return not self.not_comparable


class Comparability:
    """Every registered check, built from the ``find`` settings, run in the order of their names."""

    def __init__(self, params: FindParams):
        self.checks = [(entry.name, entry.factory(params)) for entry in COMPARABILITY_CHECKS]

    def compare(self, first: str, second: str) -> Comparison:
        """What ``first`` and ``second`` share and why (if at all) their text says they are not comparable."""
        reasons = tuple(
            NotComparable(kind=kind, detail=detail)
            for kind, check in self.checks
            for detail in check(first, second)
        )
        return Comparison(terms_in_common(first, second), reasons)
