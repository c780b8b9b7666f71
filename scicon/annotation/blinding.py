"""Blinded ids, seeded orders, and the names of the files a blinded round is made of.

An annotator sees an item's id and its sentences, nothing else. The id is a hash of the item's
key (an example id, a candidate id) under a namespace and a seed: it reveals nothing (example
ids end in the generator's name, a PMID leads to the abstract) and it stays the same when other
items change, so a redrawn sample keeps the ids, and the answers, of the items it keeps. Orders
are hashes too, for the same reason: an item keeps its place relative to the others.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")

# A blinded round's folder: the private key and manifest beside what is sent out and what comes back.
KEY_FILE = "key.jsonl"  # private: one sampled item per line, with where it came from
MANIFEST_FILE = "manifest.json"  # what was drawn from what
BLINDED = "blinded"  # the folder sent to the annotators
ANNOTATIONS = "annotations"  # the folder their answer files go into
INSTRUCTIONS_FILE = "INSTRUCTIONS.md"
CONFIG_FILE = "labelstudio_config.xml"  # the labeling interface, pasted into a Label Studio project

# 48 bits: among a million items two ids collide with a chance of about 0.2 %, and a sampler
# refuses a round where they do.
ID_DIGITS = 12


def digest(*parts: object) -> str:
    """The SHA-256 (hex) of ``parts`` joined by colons: what blinded ids and orders are made of."""
    return hashlib.sha256(":".join(str(part) for part in parts).encode()).hexdigest()


def blinded_id(prefix: str, namespace: str, *key: object) -> str:
    """The id annotators see for the item with ``key`` (seed first) in ``namespace``: ``prefix-`` and
    twelve hex digits."""
    return f"{prefix}-{digest(namespace, *key)[:ID_DIGITS]}"


def hashed_order(items: Iterable[T], key: Callable[[T], str], *namespace: object) -> list[T]:
    """``items`` in the order of the hash of ``namespace`` and each item's ``key``: seeded, and
    stable for the items that stay when others come and go."""
    return sorted(items, key=lambda item: digest(*namespace, key(item)))


def annotator_names(count: int) -> list[str]:
    """The batches' names, one per annotator: ``annotator-1`` to ``annotator-<count>``."""
    return [f"annotator-{number}" for number in range(1, count + 1)]
