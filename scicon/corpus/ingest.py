"""The ingest step: source → validated, optionally sampled abstracts, with an account of skips."""

from __future__ import annotations

import hashlib
import logging
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from scicon.corpus.params import IngestParams
from scicon.corpus.readers import read_corpus
from scicon.corpus.sources import ResolvedSource, resolve_source
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
    "unknown_heading",
    "empty_section",
    "excluded_article",
)
_LOGGED_SKIPS = 20


@dataclass
class IngestResult:
    abstracts: list[Abstract]
    skipped: list[Skip]
    metrics: dict = field(default_factory=dict)


def ingest(params: IngestParams, *, cache_dir: Path) -> IngestResult:
    """Read every source of ``params`` into abstracts, in order.

    Abstracts without sentences and repeated ids (the first occurrence wins, across sources too)
    are skipped and recorded; with ``max_abstracts`` a seeded reservoir sample keeps memory bounded
    on the 200k release and preserves reading order in the output.
    """
    resolved = [
        resolve_source(spec.source, split=spec.split, sha256=spec.sha256, cache_dir=cache_dir)
        for spec in params.sources()
    ]
    rng = random.Random(params.seed)
    first_seen: dict[str, str] = {}
    sample: list[tuple[int, Abstract]] = []
    skipped: list[Skip] = []
    valid = 0
    detokenized = 0
    per_source: list[dict] = []

    def skip(item: Skip) -> None:
        skipped.append(item)
        if len(skipped) <= _LOGGED_SKIPS:
            log.warning("skipped %s at %s %s", item.reason, item.where, item.detail)

    for source in resolved:
        log.info("ingest: reading %s (%s)", source.label, source.path)
        valid_before, skipped_before = valid, len(skipped)
        items = read_corpus(
            source.path, member=source.member, detokenize=params.detokenize, excluded_ids=source.excluded_ids
        )
        for item in tqdm(items, desc=f"ingest {source.label}", unit=" abstracts", mininterval=1.0):
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
        per_source.append(_source_figures(source, valid - valid_before, skipped[skipped_before:]))

    if len(skipped) > _LOGGED_SKIPS:
        log.warning(
            "... %d more skips (all are listed in the skipped-records file)", len(skipped) - _LOGGED_SKIPS
        )
    abstracts = [abstract for _, abstract in sorted(sample, key=lambda entry: entry[0])]
    labels = " + ".join(source.label for source in resolved)
    if not abstracts:
        raise InputFormatError(labels, f"no usable abstracts (skipped {len(skipped)})")
    metrics = _metrics(abstracts, skipped, valid, detokenized, resolved, per_source)
    return IngestResult(abstracts=abstracts, skipped=skipped, metrics=metrics)


def _source_figures(source: ResolvedSource, valid: int, skipped: list[Skip]) -> dict:
    reasons = Counter(item.reason for item in skipped)
    return {
        "source": source.label,
        "sha256": source.sha256,
        "checksum_pinned": source.pinned,
        "abstracts_valid": valid,
        "skipped": {reason: reasons[reason] for reason in SKIP_REASONS if reasons[reason]},
    }


def _reservoir_add(sample: list, entry: tuple, capacity: int | None, rng: random.Random) -> None:
    """Algorithm R: after n items, each is in the sample with probability capacity / n."""
    seen_before = entry[0]
    if capacity is None or len(sample) < capacity:
        sample.append(entry)
        return
    slot = rng.randrange(seen_before + 1)
    if slot < capacity:
        sample[slot] = entry


def _metrics(abstracts, skipped, valid, detokenized, resolved: list[ResolvedSource], per_source) -> dict:
    roles = Counter(sentence.role for abstract in abstracts for sentence in abstract.sentences)
    reasons = Counter(item.reason for item in skipped)
    # one corpus: its digest; several: the digest of their digests, in order
    digest = (
        resolved[0].sha256
        if len(resolved) == 1
        else hashlib.sha256(" ".join(source.sha256 for source in resolved).encode()).hexdigest()
    )
    return {
        "source": " + ".join(source.label for source in resolved),
        "source_sha256": digest,
        "source_checksum_pinned": all(source.pinned for source in resolved),
        "sources": per_source,
        "abstracts": len(abstracts),
        "abstracts_valid": valid,
        "abstracts_sampled_out": valid - len(abstracts),
        "sentences": sum(roles.values()),
        "sentences_per_role": {role.value.lower(): roles.get(role, 0) for role in Role},
        "sentences_detokenized": detokenized,
        "skipped": {reason: reasons.get(reason, 0) for reason in SKIP_REASONS},
    }
