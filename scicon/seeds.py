"""Seeds derived from a run's seed and what a draw is for (pair, iteration, member, sample).

A foundation: the backbones, the search, the transformations and the evolve pipeline all draw
from these, so none of them needs another's module to get one.
"""

from __future__ import annotations

import hashlib


def derive_seed(*parts: object) -> int:
    """A 31-bit seed determined by ``parts`` only (e.g. run seed, pair id, iteration, member).

    The ``j``-th sample drawn with seed ``s`` uses ``derive_seed(s, j)``, so it does not
    depend on how requests are batched or which other samples were asked for.
    """
    digest = hashlib.sha256(":".join(str(part) for part in parts).encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF
