"""REPLACEWORDS of Algorithm 1 and its ablations: how candidate rewrites of sentence2 are proposed.

Each transformation registers itself in :data:`TRANSFORMATIONS` in its own module; the
evolve stage picks one by name (``evolve.transformation``) with its settings
(``evolve.settings.transformation.<name>``).
"""

from scicon.assembly_context import PartFacts
from scicon.registry import Registry
from scicon.transformations.base import TransformationFactory

TRANSFORMATIONS: Registry[TransformationFactory] = Registry(
    "transformation", package=__name__, facts=PartFacts
)
