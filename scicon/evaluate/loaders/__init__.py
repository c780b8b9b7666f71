"""Loaders only evaluation uses, registered in :data:`BENCHMARK_LOADERS`, which extends the
readers' registry (:data:`scicon.readers.LOADERS`): every loader there, plus these.

A derived loader (registered with ``derived=True``, e.g. ``hard``) is
``load(base_benchmark, options)`` and names its base in ``options.base``. A loader here
is a code dependency of the evaluate stage alone; one whose data a judge or the build may
learn from belongs in :mod:`scicon.readers`.
"""

from __future__ import annotations

from scicon.readers import LOADERS, LoaderFactory, LoaderFacts
from scicon.registry import Registry

BENCHMARK_LOADERS: Registry[LoaderFactory] = Registry(
    "benchmark loader", package=__name__, facts=LoaderFacts, base=LOADERS
)
