"""Read the build stage's inputs into labelled candidate pairs, one reader per source.

Each source says what it found: a listed source whose file is missing or holds no
rows of its kind is reported (logged and in the metrics) rather than silently
contributing nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from scicon.dataset.params import BuildSource
from scicon.dataset.taxonomy import mutation_type
from scicon.io import read_jsonl
from scicon.records.base import TargetLabel
from scicon.records.evolve import MutatedPair
from scicon.records.negatives import RuleNegative
from scicon.records.pairs import Pair

log = logging.getLogger(__name__)

CONTRADICTION, NON_CONTRADICTION = 1, 0


@dataclass(frozen=True)
class Candidate:
    """A labelled pair before deduplication, splitting and order randomisation.

    ``premise``/``hypothesis`` keep generation order (the hypothesis is the edited or
    second sentence), which the hypothesis-only baseline needs after the shuffle.
    """

    example_id: str
    pmid: str
    premise: str
    hypothesis: str
    label: int
    generator: str
    operator: str | None = None
    mutation_type: str | None = None


@dataclass
class SourceReport:
    name: str
    path: str
    status: str = "ok"  # ok | missing | empty
    rows: int = 0
    candidates: list[Candidate] = field(default_factory=list)

    def summary(self) -> dict:
        return {"status": self.status, "rows": self.rows}


@dataclass(frozen=True)
class SourcePaths:
    pairs: Path
    evolve: Path
    negatives: Path

    def for_source(self, source: BuildSource) -> Path:
        if source is BuildSource.ORIGINAL:
            return self.pairs
        if source in (BuildSource.EVONLI, BuildSource.EVONLI_NON_CONTRADICTION):
            return self.evolve
        return self.negatives


def read_sources(sources: tuple[BuildSource, ...], paths: SourcePaths) -> list[SourceReport]:
    reports = []
    for source in sources:
        path = paths.for_source(source)
        report = SourceReport(name=source.value, path=str(path))
        if not path.exists():
            report.status = "missing"
            log.warning(
                "build: source %r is listed but %s does not exist; it contributes nothing", source, path
            )
        else:
            report.candidates = list(_READERS[source](path))
            report.rows = len(report.candidates)
            if not report.candidates:
                report.status = "empty"
                log.warning("build: source %r is listed but %s has no rows for it", source.value, path)
            else:
                log.info("build: source %r: %d rows from %s", source.value, report.rows, path)
        reports.append(report)
    return reports


def _originals(path: Path):
    for pair in read_jsonl(path, Pair):
        yield Candidate(
            example_id=f"{pair.pair_id}-original",
            pmid=pair.pmid,
            premise=pair.sentence1,
            hypothesis=pair.sentence2,
            label=NON_CONTRADICTION,
            generator=BuildSource.ORIGINAL.value,
            operator=pair.kind.value,
        )


def _evolved(path: Path, target: TargetLabel):
    generator = (
        BuildSource.EVONLI if target is TargetLabel.CONTRADICTION else BuildSource.EVONLI_NON_CONTRADICTION
    ).value
    for mutated in read_jsonl(path, MutatedPair):
        if mutated.target_label is not target:
            continue
        contradiction = target is TargetLabel.CONTRADICTION
        yield Candidate(
            example_id=f"{mutated.pair_id}-{generator}",
            pmid=mutated.pmid,
            premise=mutated.sentence1,
            hypothesis=mutated.sentence2,
            label=CONTRADICTION if contradiction else NON_CONTRADICTION,
            generator=generator,
            operator=mutated.recipe,
            mutation_type=mutation_type(mutated.edits) if contradiction else None,
        )


def _rules(path: Path, label: TargetLabel):
    for negative in read_jsonl(path, RuleNegative):
        if negative.label is not label:
            continue
        contradiction = label is TargetLabel.CONTRADICTION
        yield Candidate(
            example_id=f"{negative.negative_id}-rules",
            pmid=negative.pmid,
            premise=negative.premise,
            hypothesis=negative.hypothesis,
            label=CONTRADICTION if contradiction else NON_CONTRADICTION,
            generator=BuildSource.RULES.value,
            operator=negative.operator,
            mutation_type=mutation_type(negative.edits) if contradiction else None,
        )


_READERS = {
    BuildSource.ORIGINAL: _originals,
    BuildSource.EVONLI: lambda path: _evolved(path, TargetLabel.CONTRADICTION),
    BuildSource.EVONLI_NON_CONTRADICTION: lambda path: _evolved(path, TargetLabel.NON_CONTRADICTION),
    BuildSource.RULES: lambda path: _rules(path, TargetLabel.CONTRADICTION),
    BuildSource.RULE_CONTROLS: lambda path: _rules(path, TargetLabel.NON_CONTRADICTION),
}
