"""The gate every generated contradiction passes before it becomes a SciCon label 1.

EvoNLI searches until its goal classifier is confident, so what it accepts is, among other
things, where that classifier is wrong; a rule edit contradicts the sentence it was made from,
not necessarily the other sentence of the pair. A generated contradiction is kept only when it
passes, in this order (cheapest first):

1. **precision**: its source's precision measured on read-backs of training articles
   (``build.precision_reads``, the gold format `python -m scicon.judgements read` writes) is at
   least ``build.min_precision``; a source with fewer than ``build.reads_needed`` reads is not judged
   by it. A source is a rule operator (``rules_cross/<operator>``) or EvoNLI as a whole.
2. **naturalness**: the naturalness check (:mod:`scicon.naturalness`, learnt from the annotators'
   garbled marks) gives the edit a P(garbled) of at most ``build.max_garbled``.
3. **verifier**: a second classifier, one the search never queried, reads the plain pair and
   gives P(contradiction) of at least ``build.min_verifier``.

Each gate can be off: no ``precision_reads`` (or ``min_precision`` 0), and a naturalness or
verifier folder marked untrained (its stage's ``train: false``); with all three off the build is
what it was before the gate. Label-0 rows, original pairs and labelled sets pass
untouched. Every removal is counted per source, and the read-backs that the build's candidates
cover give the precision and yield of the kept contradictions at each verifier threshold (the
curve ``plots/build/gate.csv``, which ``dvc exp run -S build.min_verifier=…`` moves along).
:func:`scicon.verifier.gate.build_gate` assembles the gate ``build.*`` describes.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scicon.annotation.intervals import share_with_interval
from scicon.errors import InputNotFoundError
from scicon.io import read_jsonl
from scicon.params import meets_threshold
from scicon.records.dataset import Candidate
from scicon.records.judgements import Judgement
from scicon.textdiff import normalised_sentence

log = logging.getLogger(__name__)

CONTRADICTION = 1
# a judged pair's source, by the build generator that makes the same kind of pair
BUILD_GENERATOR = {"rule_cross": "rules_cross", "evonli_accepted": "evonli"}
GATE_CURVE_FIELDS = ("min_verifier", "kept", "read", "precision", "precision_low", "precision_high")
CURVE_THRESHOLDS = tuple(round(t, 2) for t in np.linspace(0.0, 0.95, 20))

PairScorer = Callable[[Sequence[Candidate]], np.ndarray]


def source_name(generator: str, operator: str | None) -> str:
    """The unit a precision is measured for: a rule operator, or EvoNLI as a whole."""
    return generator if generator == "evonli" else f"{generator}/{operator}"


def gated_source(candidate: Candidate) -> str:
    return source_name(candidate.generator, candidate.operator)


def judged_source(judgement: Judgement) -> str | None:
    """The source of a read pair in the build's terms (None: not a generated contradiction)."""
    generator = BUILD_GENERATOR.get(judgement.source)
    return None if generator is None else source_name(generator, judgement.operator)


def is_gated(candidate: Candidate) -> bool:
    """Generated contradictions pass the gate; label 0, originals and labelled sets do not."""
    return (
        candidate.label == CONTRADICTION
        and candidate.generator != "original"
        and not candidate.generator.startswith("labelled")
    )


def pair_key(first: str, second: str) -> frozenset[str]:
    return frozenset((normalised_sentence(first), normalised_sentence(second)))


@dataclass(frozen=True)
class ReadBacks:
    """Annotators' reads of generated contradictions, by pair and by source."""

    by_pair: dict[frozenset[str], Judgement]
    by_source: dict[str, list[Judgement]]
    path: str

    @classmethod
    def read(cls, path: str | Path) -> ReadBacks:
        if not Path(path).is_file():
            raise InputNotFoundError(f"build.precision_reads: {path} does not exist")
        by_pair, by_source = {}, defaultdict(list)
        for judgement in read_jsonl(path, Judgement):
            source = judged_source(judgement)
            if source is None:
                continue  # originals, controls, other abstracts: not a generated contradiction
            by_pair[pair_key(judgement.sentence1, judgement.sentence2)] = judgement
            by_source[source].append(judgement)
        return cls(by_pair, dict(by_source), str(path))

    def precision(self, source: str, level: float) -> dict:
        reads = self.by_source.get(source, [])
        return share_with_interval(sum(j.contradiction for j in reads), len(reads), level)


@dataclass
class GateReport:
    """What the gate did, per source: offered, removed by each gate, kept; with the reads."""

    by_source: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    precision: dict[str, dict] = field(default_factory=dict)
    kept_reads: dict[str, dict] = field(default_factory=dict)
    curve: list[dict] = field(default_factory=list)
    settings: dict = field(default_factory=dict)

    def summary(self) -> dict:
        sources = {name: dict(counts) for name, counts in sorted(self.by_source.items())}
        total = Counter()
        for counts in self.by_source.values():
            total.update(counts)
        offered = total["offered"]
        return {
            "settings": self.settings,
            "offered": offered,
            "kept": total["kept"],
            "removed": {
                gate: {"count": total[gate], "share": round(total[gate] / offered, 4) if offered else None}
                for gate in ("below_precision", "garbled", "verifier_rejected")
            },
            "by_source": sources,
            "read_precision": self.precision,
            "kept_read_precision": self.kept_reads,
        }


@dataclass(frozen=True)
class Gate:
    min_precision: float
    reads_needed: int
    reads: ReadBacks | None
    garbled_probability: PairScorer | None
    max_garbled: float
    contradiction_probability: PairScorer | None
    min_verifier: float
    confidence_level: float

    def apply(self, candidates: Sequence[Candidate]) -> tuple[list[Candidate], GateReport]:
        """``candidates`` less the generated contradictions the gate removes, in their order."""
        report = GateReport(settings=self._settings())
        gated = [c for c in candidates if is_gated(c)]
        for candidate in gated:
            report.by_source[gated_source(candidate)]["offered"] += 1
        passing = self._precise_sources(gated, report)
        passing = self._natural(passing, report)
        verified, probabilities = self._verified(passing, report)
        for candidate in verified:
            report.by_source[gated_source(candidate)]["kept"] += 1
        kept_ids = {c.example_id for c in verified}
        report.kept_reads = self._kept_reads(verified)
        report.curve = self._curve(passing, probabilities)
        kept = [c for c in candidates if not is_gated(c) or c.example_id in kept_ids]
        log.info(
            "build gate: %d of %d generated contradictions kept (%s)",
            len(verified),
            len(gated),
            ", ".join(
                f"{name} {counts['kept']}/{counts['offered']}" for name, counts in report.by_source.items()
            ),
        )
        return kept, report

    def _settings(self) -> dict:
        return {
            "min_precision": self.min_precision,
            "reads_needed": self.reads_needed,
            "precision_reads": self.reads.path if self.reads else None,
            "naturalness": self.garbled_probability is not None,
            "max_garbled": self.max_garbled,
            "verifier": self.contradiction_probability is not None,
            "min_verifier": self.min_verifier,
        }

    def _precise_sources(self, gated: list[Candidate], report: GateReport) -> list[Candidate]:
        if self.reads is None:
            return gated
        left_out = set()
        for source in sorted({gated_source(c) for c in gated} | set(self.reads.by_source)):
            figure = self.reads.precision(source, self.confidence_level)
            judged = figure["of"] >= self.reads_needed
            below = judged and not meets_threshold(figure["share"], self.min_precision)
            report.precision[source] = {**figure, "judged": judged, "left_out": below}
            if below:
                left_out.add(source)
        kept = []
        for candidate in gated:
            if gated_source(candidate) in left_out:
                report.by_source[gated_source(candidate)]["below_precision"] += 1
            else:
                kept.append(candidate)
        return kept

    def _natural(self, candidates: list[Candidate], report: GateReport) -> list[Candidate]:
        if self.garbled_probability is None or not candidates:
            return candidates
        garbled = self.garbled_probability(candidates)
        kept = []
        for candidate, probability in zip(candidates, garbled, strict=True):
            if probability > self.max_garbled:
                report.by_source[gated_source(candidate)]["garbled"] += 1
            else:
                kept.append(candidate)
        return kept

    def _verified(
        self, candidates: list[Candidate], report: GateReport
    ) -> tuple[list[Candidate], np.ndarray | None]:
        if self.contradiction_probability is None or not candidates:
            return candidates, None
        probabilities = np.asarray(self.contradiction_probability(candidates), dtype=float)
        kept = []
        for candidate, probability in zip(candidates, probabilities, strict=True):
            if meets_threshold(float(probability), self.min_verifier):
                kept.append(candidate)
            else:
                report.by_source[gated_source(candidate)]["verifier_rejected"] += 1
        return kept, probabilities

    def _read_of(self, candidate: Candidate) -> Judgement | None:
        if self.reads is None:
            return None
        return self.reads.by_pair.get(pair_key(candidate.premise, candidate.hypothesis))

    def _kept_reads(self, kept: list[Candidate]) -> dict[str, dict]:
        """The precision of what the gate kept, on the kept pairs annotators read (in-sample for a
        verifier or naturalness check that learnt from those reads)."""
        if self.reads is None:
            return {}
        hits: dict[str, list[int]] = defaultdict(list)
        for candidate in kept:
            read = self._read_of(candidate)
            if read is not None:
                hits[gated_source(candidate)].append(read.contradiction)
                hits["all"].append(read.contradiction)
        return {
            source: share_with_interval(sum(flags), len(flags), self.confidence_level)
            for source, flags in sorted(hits.items())
        }

    def _curve(self, candidates: list[Candidate], probabilities: np.ndarray | None) -> list[dict]:
        """Precision (on the read pairs) and yield of the contradictions kept at each verifier threshold."""
        if probabilities is None:
            return []
        rows = []
        reads = [self._read_of(c) for c in candidates]
        for threshold in CURVE_THRESHOLDS:
            passing = [meets_threshold(float(p), threshold) for p in probabilities]
            flags = [
                r.contradiction for r, keep in zip(reads, passing, strict=True) if keep and r is not None
            ]
            figure = share_with_interval(sum(flags), len(flags), self.confidence_level)
            low, high = figure["interval"] or (None, None)
            rows.append(
                {
                    "min_verifier": threshold,
                    "kept": int(sum(passing)),
                    "read": figure["of"],
                    "precision": figure["share"],
                    "precision_low": low,
                    "precision_high": high,
                }
            )
        return rows
