"""The build's gate assembled from what ``build.*`` names: read-backs, the naturalness check, the verifier."""

from __future__ import annotations

import logging

from scicon.classifier import plain_pairs_classifier
from scicon.classifier_folder import untrained_reason
from scicon.dataset.gate import Gate, ReadBacks
from scicon.dataset.params import BuildParams
from scicon.naturalness import NaturalnessCheck

log = logging.getLogger(__name__)


def _trained(folder: str) -> bool:
    """Whether ``folder`` holds a model: a stage told not to train leaves one marked untrained."""
    why = untrained_reason(folder)
    if why is not None:
        log.info("build gate: %s is untrained (%s), so that part of the gate is off", folder, why)
    return why is None


def build_gate(params: BuildParams, confidence_level: float) -> Gate | None:
    """The gate ``build.*`` describes; None when every part of it is off (the build before it).
    A check whose folder is marked untrained (its stage's ``train: false``) is off."""
    reads = ReadBacks.read(params.precision_reads) if params.precision_reads else None
    garbled = verified = None
    if _trained(params.naturalness):
        check = NaturalnessCheck(params.naturalness)
        garbled = lambda candidates: check.garbled_probabilities(  # noqa: E731
            [(c.original, c.hypothesis) for c in candidates]
        )
    if _trained(params.verifier):
        verifier = plain_pairs_classifier(params.verifier, "build.verifier")
        verified = lambda candidates: verifier.contradiction_probabilities(  # noqa: E731
            [(c.premise, c.hypothesis) for c in candidates]
        )
    if reads is None and garbled is None and verified is None:
        return None
    return Gate(
        min_precision=params.min_precision,
        reads_needed=params.reads_needed,
        reads=reads,
        garbled_probability=garbled,
        max_garbled=params.max_garbled,
        contradiction_probability=verified,
        min_verifier=params.min_verifier,
        confidence_level=confidence_level,
    )
