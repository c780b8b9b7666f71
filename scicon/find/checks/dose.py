"""A different dose in the same unit: 10 mg against 20 mg (one reason per unit both name)."""

from __future__ import annotations

from collections.abc import Iterable

from scicon.find.checks import COMPARABILITY_CHECKS, Check
from scicon.find.params import FindParams
from scicon.find.terms import describe, doses


def different_doses(first: str, second: str) -> Iterable[str]:
    one, other = doses(first), doses(second)
    for unit in sorted({unit for _, unit in one} & {unit for _, unit in other}):
        a = {value for value, u in one if u == unit}
        b = {value for value, u in other if u == unit}
        if not a & b:
            yield f"{describe(f'{v:g} {unit}' for v in a)} vs {describe(f'{v:g} {unit}' for v in b)}"


@COMPARABILITY_CHECKS.register("dose", description="a different dose in the same unit")
def dose(params: FindParams) -> Check:
    return different_doses
