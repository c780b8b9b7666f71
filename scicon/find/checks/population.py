"""A different population: children against adults (``populations.tsv``); one within the
other, such as older adults within adults, is no mismatch."""

from __future__ import annotations

from collections.abc import Iterable

from scicon.find.checks import COMPARABILITY_CHECKS, Check
from scicon.find.params import FindParams
from scicon.find.terms import broader_populations, describe, populations


def conflicting(first: frozenset[str], second: frozenset[str]) -> bool:
    if not first or not second:
        return False
    return not any(a in broader_populations(b) or b in broader_populations(a) for a in first for b in second)


def different_populations(first: str, second: str) -> Iterable[str]:
    one, other = populations(first), populations(second)
    if conflicting(one, other):
        yield f"{describe(one)} vs {describe(other)}"


@COMPARABILITY_CHECKS.register("population", description="a different population, neither within the other")
def population(params: FindParams) -> Check:
    return different_populations
