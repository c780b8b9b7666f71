"""A different follow-up: 12 weeks against 1 year; within 15 % of each other is the same."""

from __future__ import annotations

from collections.abc import Iterable

from scicon.find.checks import COMPARABILITY_CHECKS, Check
from scicon.find.params import FindParams
from scicon.find.terms import describe, durations

SAME_WITHIN = 0.15  # 12 weeks and 3 months are one follow-up


def close(first_days: float, second_days: float) -> bool:
    return abs(first_days - second_days) <= SAME_WITHIN * max(first_days, second_days)


def different_follow_up(first: str, second: str) -> Iterable[str]:
    one, other = durations(first), durations(second)
    if one and other and not any(close(a, b) for a in one for b in other):
        yield f"{describe(f'{d:g} days' for d in one)} vs {describe(f'{d:g} days' for d in other)}"


@COMPARABILITY_CHECKS.register("follow-up", description="a different follow-up (beyond 15 %)")
def follow_up(params: FindParams) -> Check:
    return different_follow_up
