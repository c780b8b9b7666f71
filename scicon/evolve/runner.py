"""Running a search over every pair: resumable, observable, and summarised in metrics.

Each finished pair is appended to a journal (the trace file) and flushed to disk at
once, so an interrupted run — Ctrl-C or a killed process — loses at most the pair
in progress; the next run skips every pair the journal already holds for the same
settings (``config_digest``). At the end the journal is rewritten in pair order, so
a resumed run's outputs equal an uninterrupted run's. A backbone failure on one
pair (after the backend's retries) is recorded as that pair's error, not fatal;
such pairs are tried again by the next run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from scicon.backbones.base import BackboneError
from scicon.backbones.cache import CachedBackbone
from scicon.errors import InputFormatError
from scicon.io import read_jsonl, write_jsonl
from scicon.records.base import TargetLabel
from scicon.records.corpus import Abstract
from scicon.records.evolve import MutatedPair, PairTrace, SearchStatus
from scicon.records.pairs import Pair
from scicon.search.base import Search
from scicon.seeds import derive_seed
from scicon.textdiff import word_diff

log = logging.getLogger(__name__)


@dataclass
class EvolveResult:
    traces: list[PairTrace]
    accepted: list[MutatedPair]
    resumed: int


def read_journal(path: Path, config_digest: str) -> dict[tuple[str, str], PairTrace]:
    """Finished pairs of an earlier run with the same settings. A torn last record (a write cut
    by a killed process, perhaps mid-character) is dropped; a broken record before it stops
    the run with the file and line named."""
    done: dict[tuple[str, str], PairTrace] = {}
    if not path.exists():
        return done
    try:
        for trace in read_jsonl(path, PairTrace):
            if trace.config_digest == config_digest and trace.status is not SearchStatus.ERROR:
                done[(trace.pair_id, trace.target_label.value)] = trace
    except InputFormatError as error:
        if error.line != path.read_bytes().rstrip(b"\n").count(b"\n") + 1:  # not the last line
            raise
        log.warning("%s:%d: incomplete last record (interrupted write) ignored", path, error.line)
    return done


class _Journal:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            with open(path, "r+b") as handle:
                size = handle.seek(0, os.SEEK_END)
                handle.seek(max(size - 1, 0))
                if size and handle.read(1) != b"\n":
                    # a record torn by a killed process: cut it off (its pair is searched again),
                    # so no broken line stays inside the journal, which is also the stage's trace
                    handle.seek(0)
                    handle.truncate(handle.read().rfind(b"\n") + 1)
        self._handle = open(path, "a", encoding="utf-8")  # noqa: SIM115

    def append(self, trace: PairTrace) -> None:
        self._handle.write(trace.model_dump_json() + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()


def run_searches(
    pairs: Sequence[Pair],
    searches: dict[TargetLabel, Search],
    *,
    journal: Path,
    config_digest: str,
    recipe: str,
    seed: int,
    abstracts: dict[str, Abstract] | None = None,
    backbones: Sequence[CachedBackbone] = (),
    workers: int = 1,
) -> EvolveResult:
    work = [(pair, target) for pair in pairs for target in searches]
    done = read_journal(journal, config_digest)
    todo = [(p, t) for p, t in work if (p.pair_id, t.value) not in done]
    if done:
        log.info("resuming: %d of %d searches already in %s", len(work) - len(todo), len(work), journal)

    def one(item: tuple[Pair, TargetLabel]) -> PairTrace:
        pair, target = item
        return _search_one(pair, target, searches[target], abstracts, backbones, seed, recipe, config_digest)

    finished = dict(done)
    writer = _Journal(journal)
    progress = tqdm(total=len(work), initial=len(work) - len(todo), desc="evolve", unit=" pairs")
    succeeded = sum(t.status is SearchStatus.SUCCEEDED for t in finished.values())

    def show(trace: PairTrace | None = None) -> None:
        nonlocal succeeded
        if trace is not None:
            finished[(trace.pair_id, trace.target_label.value)] = trace
            succeeded += trace.status is SearchStatus.SUCCEEDED
            progress.update()
        progress.set_postfix(
            success=f"{succeeded / len(finished):.0%}" if finished else "-",
            in_flight=sum(backbone.in_flight for backbone in backbones),  # model requests, all pairs
        )

    # At most `workers` pairs at a time; each is journalled the moment it finishes, so a
    # slow pair holds back neither the other pairs nor their records.
    pool = ThreadPoolExecutor(max_workers=workers)
    queued = iter(todo)
    running: set[Future] = set()
    try:
        while True:
            while len(running) < workers and (item := next(queued, None)) is not None:
                running.add(pool.submit(one, item))
            if not running:
                break
            completed, running = wait(running, timeout=1.0, return_when=FIRST_COMPLETED)
            for future in completed:
                trace = future.result()
                writer.append(trace)
                show(trace)
            if not completed:
                show()
    finally:
        # on Ctrl-C: drop queued pairs; the ones in flight finish and are lost, not half-written
        pool.shutdown(wait=False, cancel_futures=True)
        progress.close()
        writer.close()
    traces = [finished[(p.pair_id, t.value)] for p, t in work]
    write_jsonl(journal, traces)  # pair order: a resumed run's file equals an uninterrupted one's
    accepted = [t.accepted for t in traces if t.accepted is not None]
    return EvolveResult(traces, accepted, resumed=len(work) - len(todo))


def _search_one(
    pair: Pair,
    target: TargetLabel,
    search: Search,
    abstracts: dict[str, Abstract] | None,
    backbones: Sequence[CachedBackbone],
    seed: int,
    recipe: str,
    config_digest: str,
) -> PairTrace:
    pair_seed = derive_seed(seed, pair.pair_id, target.value)
    context = abstracts.get(pair.pmid) if abstracts else None
    common = dict(
        pair_id=pair.pair_id,
        pmid=pair.pmid,
        target_label=target,
        sentence1=pair.sentence1,
        original_sentence2=pair.sentence2,
        config_digest=config_digest,
    )
    with contextlib.ExitStack() as scopes:
        calls = [scopes.enter_context(backbone.scope()) for backbone in backbones]
        try:
            outcome = search.run(pair, pair_seed, context)
        except BackboneError as error:
            log.warning("pair %s failed: %s", pair.pair_id, error)
            return PairTrace(status=SearchStatus.ERROR, error=str(error), **common, **_calls(calls))
    accepted = None
    if outcome.accepted is not None:
        chosen = outcome.accepted
        accepted = MutatedPair(
            pair_id=pair.pair_id,
            pmid=pair.pmid,
            kind=pair.kind,
            sentence1=pair.sentence1,
            original_sentence2=pair.sentence2,
            sentence2=chosen.text,
            target_label=target,
            confidence=None if chosen.confidence is None else min(1.0, max(0.0, chosen.confidence)),
            similarity=chosen.similarity,
            claim=chosen.claim,
            iteration=chosen.iteration,
            edits=word_diff(pair.sentence2, chosen.text),
            recipe=recipe,
        )
    return PairTrace(
        status=outcome.status,
        original_confidence=outcome.original_confidence,
        generations=outcome.generations,
        accepted=accepted,
        **common,
        **_calls(calls),
    )


def _calls(scopes) -> dict:
    return {
        "backbone_calls": sum(sum(stats.requested.values()) for stats in scopes),
        "cache_hits": sum(sum(stats.cached.values()) for stats in scopes),
    }


def config_digest(*parts: object) -> str:
    """A short digest of everything that determines a pair's search result."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]
