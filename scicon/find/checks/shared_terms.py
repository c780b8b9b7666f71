"""Too little in common: fewer than ``find.min_shared_terms`` shared content terms (a drug and
an outcome, say), so nothing shows the two claims are about one intervention and outcome."""

from __future__ import annotations

from collections.abc import Iterable

from scicon.find.checks import COMPARABILITY_CHECKS, Check
from scicon.find.params import FindParams
from scicon.find.terms import shared_terms as terms_in_common


@COMPARABILITY_CHECKS.register("shared terms", description="fewer than find.min_shared_terms terms shared")
def shared_terms(params: FindParams) -> Check:
    wanted = params.min_shared_terms

    def too_few(first: str, second: str) -> Iterable[str]:
        count = len(terms_in_common(first, second))
        if count < wanted:
            yield f"{count} (fewer than {wanted}): no common intervention or outcome"

    return too_few
