"""The ingest step: source → validated, optionally sampled abstracts, with an account of skips."""

from __future__ import annotations

import logging
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from scicon.corpus.params import IngestParams
from scicon.corpus.readers import read_corpus
from scicon.corpus.sources import resolve_source
from scicon.errors import InputFormatError
from scicon.records.base import Skip
from scicon.records.corpus import Abstract, Role

log = logging.getLogger(__name__)

SKIP_REASONS = (
    "empty_abstract",
    "duplicate_pmid",
    "no_abstract",
    "no_pmid",
    "unstructured_abstract",
    "unassigned_section",
)
_LOGGED_SKIPS = 20


@dataclass
class IngestResult:
    abstracts: list[Abstract]
    skipped: list[Skip]
    metrics: dict = field(default_factory=dict)


def ingest(params: IngestParams, *, cache_dir: Path) -> IngestResult:
    """Read ``params.source`` into abstracts.

    Abstracts without sentences and repeated PMIDs (the first occurrence wins) are
    skipped and recorded; with ``max_abstracts`` a seeded reservoir sample keeps
    memory bounded on the 200k release and preserves file order in the output.
    """
    resolved = resolve_source(params.source, split=params.split, sha256=params.sha256, cache_dir=cache_dir)
    log.info("ingest: reading %s (%s)", resolved.label, resolved.path)
    rng = random.Random(params.seed)
    first_seen: dict[str, str] = {}
    sample: list[tuple[int, Abstract]] = []
    skipped: list[Skip] = []
    valid = 0
    detokenized = 0

    def skip(item: Skip) -> None:
        skipped.append(item)
        if len(skipped) <= _LOGGED_SKIPS:
            log.warning("skipped %s at %s %s", item.reason, item.where, item.detail)

    items = read_corpus(resolved.path, member=resolved.member, detokenize=params.detokenize)
    for item in tqdm(items, desc="ingest", unit=" abstracts", mininterval=1.0):
        if isinstance(item, Skip):
            skip(item)
            continue
        if not item.sentences:
            skip(Skip(reason="empty_abstract", where=item.origin, detail=f"PMID {item.pmid}"))
            continue
        if item.pmid in first_seen:
            skip(
                Skip(
                    reason="duplicate_pmid",
                    where=item.origin,
                    detail=f"PMID {item.pmid} first read at {first_seen[item.pmid]}",
                )
            )
            continue
        first_seen[item.pmid] = item.origin
        detokenized += item.detokenized
        abstract = Abstract(pmid=item.pmid, sentences=tuple(item.sentences), origin=item.origin)
        _reservoir_add(sample, (valid, abstract), params.max_abstracts, rng)
        valid += 1

    if len(skipped) > _LOGGED_SKIPS:
        log.warning(
            "... %d more skips (all are listed in the skipped-records file)", len(skipped) - _LOGGED_SKIPS
        )
    abstracts = [abstract for _, abstract in sorted(sample, key=lambda entry: entry[0])]
    if not abstracts:
        raise InputFormatError(resolved.label, f"no usable abstracts (skipped {len(skipped)})")
    metrics = _metrics(abstracts, skipped, valid, detokenized, resolved)
    return IngestResult(abstracts=abstracts, skipped=skipped, metrics=metrics)


def _reservoir_add(sample: list, entry: tuple, capacity: int | None, rng: random.Random) -> None:
    """Algorithm R: after n items, each is in the sample with probability capacity / n."""
    seen_before = entry[0]
    if capacity is None or len(sample) < capacity:
        sample.append(entry)
        return
    slot = rng.randrange(seen_before + 1)
    if slot < capacity:
        sample[slot] = entry


def _metrics(abstracts, skipped, valid, detokenized, resolved) -> dict:
    roles = Counter(sentence.role for abstract in abstracts for sentence in abstract.sentences)
    reasons = Counter(item.reason for item in skipped)
    return {
        "source": resolved.label,
        "source_sha256": resolved.sha256,
        "source_checksum_pinned": resolved.pinned,
        "abstracts": len(abstracts),
        "abstracts_valid": valid,
        "abstracts_sampled_out": valid - len(abstracts),
        "sentences": sum(roles.values()),
        "sentences_per_role": {role.value.lower(): roles.get(role, 0) for role in Role},
        "sentences_detokenized": detokenized,
        "skipped": {reason: reasons.get(reason, 0) for reason in SKIP_REASONS},
    }
