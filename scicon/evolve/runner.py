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
from typing import Protocol

from pydantic import ValidationError
from statsmodels.stats.proportion import proportion_confint
from tqdm import tqdm

from scicon.backbones import BackboneError, CachedBackbone
from scicon.backbones.base import derive_seed
from scicon.io import write_jsonl
from scicon.records.base import TargetLabel
from scicon.records.corpus import Abstract
from scicon.records.evolve import MutatedPair, PairTrace
from scicon.records.pairs import Pair
from scicon.search.base import SearchOutcome
from scicon.textdiff import word_diff, words_changed

log = logging.getLogger(__name__)


class Search(Protocol):
    def run(self, pair: Pair, seed: int, context: Abstract | None = None) -> SearchOutcome: ...


@dataclass
class EvolveResult:
    traces: list[PairTrace]
    accepted: list[MutatedPair]
    resumed: int


def read_journal(path: Path, config_digest: str) -> dict[tuple[str, str], PairTrace]:
    """Finished pairs of an earlier run with the same settings; a torn last line is dropped."""
    done: dict[tuple[str, str], PairTrace] = {}
    if not path.exists():
        return done
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            trace = PairTrace.model_validate_json(line)
        except ValidationError:
            if number == len(lines):
                log.warning("%s:%d: incomplete last record (interrupted write) ignored", path, number)
                continue
            raise
        if trace.config_digest == config_digest and trace.status != "error":
            done[(trace.pair_id, trace.target_label.value)] = trace
    return done


class _Journal:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = open(path, "a", encoding="utf-8")  # noqa: SIM115
        # a torn line left by a killed process must not glue onto the next record
        if path.stat().st_size and not path.read_bytes().endswith(b"\n"):
            self._handle.write("\n")

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
    backbone: CachedBackbone | None = None,
    workers: int = 1,
) -> EvolveResult:
    work = [(pair, target) for pair in pairs for target in searches]
    done = read_journal(journal, config_digest)
    todo = [(p, t) for p, t in work if (p.pair_id, t.value) not in done]
    if done:
        log.info("resuming: %d of %d searches already in %s", len(work) - len(todo), len(work), journal)

    def one(item: tuple[Pair, TargetLabel]) -> PairTrace:
        pair, target = item
        return _search_one(pair, target, searches[target], abstracts, backbone, seed, recipe, config_digest)

    finished = dict(done)
    writer = _Journal(journal)
    progress = tqdm(total=len(work), initial=len(work) - len(todo), desc="evolve", unit=" pairs")

    succeeded = sum(t.status == "succeeded" for t in finished.values())

    def show(trace: PairTrace | None = None) -> None:
        nonlocal succeeded
        if trace is not None:
            finished[(trace.pair_id, trace.target_label.value)] = trace
            succeeded += trace.status == "succeeded"
            progress.update()
        progress.set_postfix(
            success=f"{succeeded / len(finished):.0%}" if finished else "-",
            in_flight=backbone.in_flight if backbone is not None else 0,  # model requests, all pairs
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
    backbone: CachedBackbone | None,
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
    scope = backbone.scope() if backbone is not None else contextlib.nullcontext()
    with scope as calls:
        try:
            outcome = search.run(pair, pair_seed, context)
        except BackboneError as error:
            log.warning("pair %s failed: %s", pair.pair_id, error)
            return PairTrace(status="error", error=str(error), **common, **_calls(calls))
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
            confidence=min(1.0, max(0.0, chosen.confidence)),
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


def _calls(stats) -> dict:
    if stats is None:
        return {}
    return {"backbone_calls": sum(stats.requested.values()), "cache_hits": sum(stats.cached.values())}


def evolve_metrics(
    traces: Sequence[PairTrace], thresholds, wall_seconds: float, backbone: CachedBackbone | None
) -> dict:
    """The evolve stage's metrics; per target label, the contradiction target at the top level."""
    metrics: dict = {}
    for target in TargetLabel:
        subset = [t for t in traces if t.target_label is target]
        if not subset:
            continue
        summary = _target_metrics(subset, thresholds)
        if target is TargetLabel.CONTRADICTION:
            metrics.update(summary)
        else:
            metrics[target.value] = summary
    metrics["wall_seconds"] = round(wall_seconds, 1)
    if backbone is not None:
        metrics["backbone"] = backbone.metrics()  # this run's model work only
        # The cost of the output itself comes from the traces, so pairs resumed from an
        # earlier run count with the calls they cost then.
        accepted = sum(t.accepted is not None for t in traces)
        requested = sum(t.backbone_calls for t in traces)
        computed = requested - sum(t.cache_hits for t in traces)
        metrics["computed_calls_per_pair"] = round(computed / len(traces), 2) if traces else None
        metrics["calls_per_accepted_pair"] = round(requested / accepted, 2) if accepted else None
        metrics["computed_calls_per_accepted_pair"] = round(computed / accepted, 2) if accepted else None
    return metrics


def _target_metrics(traces: Sequence[PairTrace], thresholds) -> dict:
    status = {s: sum(t.status == s for t in traces) for s in ("succeeded", "failed", "skipped", "error")}
    attempted = status["succeeded"] + status["failed"]
    # With no attempted pair (all skipped: the originals already meet the target) the
    # rate is undefined, reported as null rather than as a 0% that never happened.
    success_rate = low = high = None
    if attempted:
        success_rate = round(status["succeeded"] / attempted, 4)
        interval = proportion_confint(status["succeeded"], attempted, alpha=0.05, method="wilson")
        low, high = (round(float(bound), 4) for bound in interval)
    candidates = [c for t in traces for g in t.generations for m in g.members for c in m.candidates]
    proposed = [c for c in candidates if c.text is not None]
    sim = [c.similarity for c in proposed if c.similarity is not None]
    claim = [c.claim for c in proposed if c.claim is not None]
    confidence = [c.confidence for c in proposed if c.confidence is not None]
    accepted = [t.accepted for t in traces if t.accepted is not None]

    def rate(values, threshold):
        return round(sum(v >= threshold for v in values) / len(values), 4) if values else None

    return {
        "pairs_tried": len(traces),
        "succeeded": status["succeeded"],
        "failed": status["failed"],
        "skipped": status["skipped"],
        "errors": status["error"],
        "attack_success_rate": success_rate,
        "attack_success_rate_ci_low": low,
        "attack_success_rate_ci_high": high,
        "contradiction_ratio": round(status["succeeded"] / len(traces), 4) if traces else 0.0,
        "candidates_proposed": len(candidates),
        "no_mutation_rate": round(1 - len(proposed) / len(candidates), 4) if candidates else None,
        "similarity_pass_rate": rate(sim, thresholds.sim),
        "claim_pass_rate": rate(claim, thresholds.claim),
        "target_pass_rate": rate(confidence, thresholds.target),
        "mean_generations_to_success": round(sum(a.iteration + 1 for a in accepted) / len(accepted), 3)
        if accepted
        else None,
        "mean_words_changed": round(sum(words_changed(a.edits) for a in accepted) / len(accepted), 3)
        if accepted
        else None,
    }


def success_by_generation(traces: Sequence[PairTrace], max_iterations: int) -> list[dict]:
    """Cumulative share of attempted pairs accepted by each generation (a plot of the stage)."""
    attempted = [t for t in traces if t.status in ("succeeded", "failed")]
    rows = []
    for generation in range(1, max_iterations + 1):
        accepted = sum(
            1 for t in attempted if t.accepted is not None and t.accepted.iteration + 1 <= generation
        )
        rows.append(
            {
                "generation": generation,
                "accepted": accepted,
                # undefined with no attempted pair, as the attack success rate
                "cumulative_success_rate": round(accepted / len(attempted), 4) if attempted else None,
            }
        )
    return rows


def config_digest(*parts: object) -> str:
    """A short digest of everything that determines a pair's search result."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]
