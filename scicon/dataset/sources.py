"""Read the build stage's inputs into labelled candidate pairs, one reader per source.

Each source says what it found: a listed source whose file is missing or holds no
rows of its kind is reported (logged and in the metrics) rather than silently
contributing nothing, and a source that leaves rows out counts them by reason.

The negatives stage edits one sentence at a time, so its file holds (source
sentence, edit) records; the build offers them in two forms (docs/negatives.md):

- **self** (``rules_self``, ``rule_controls_self``): the edit paired with the sentence
  it was made from. Measured in this project, a classifier learns these through a
  shortcut (near-identical sentences mean contradiction) that transfers nowhere.
- **cross** (``rules_cross``, ``rule_controls_cross``): an edit of a pair's sentence2
  (its conclusion) paired with that pair's sentence1 (the supporting result, or the
  other conclusion) — the evidence stays and the claim flips, as in "BioNLI:
  Generating a Biomedical NLI Dataset Using Lexico-semantic Constraints for
  Adversarial Examples". The "Modified EDA" baseline of the EvoNLI paper's Table 2
  pairs its edits with P1 the same way, so ``negatives.generator: modified_eda`` is
  read in cross form by the same sources. Edits of sentence1 have no cross form and
  are left out (counted). The untouched pairs themselves are ``original``.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from scicon.dataset.params import BuildSource
from scicon.dataset.taxonomy import mutation_type
from scicon.errors import ParamsError
from scicon.io import read_jsonl
from scicon.records.base import TargetLabel
from scicon.records.dataset import Candidate
from scicon.records.evolve import MutatedPair
from scicon.records.negatives import RuleNegative
from scicon.records.pairs import Pair

log = logging.getLogger(__name__)

CONTRADICTION, NON_CONTRADICTION = 1, 0

# The `generator` of a row: what made it. The two labels of one rule form share a
# generator (the operator tells a control from a contradiction).
GENERATORS = {
    BuildSource.EVONLI: "evonli",
    BuildSource.EVONLI_NON_CONTRADICTION: "evonli_non_contradiction",
    BuildSource.ORIGINAL: "original",
    BuildSource.RULES_SELF: "rules_self",
    BuildSource.RULE_CONTROLS_SELF: "rules_self",
    BuildSource.RULES_CROSS: "rules_cross",
    BuildSource.RULE_CONTROLS_CROSS: "rules_cross",
}

# Why a cross-form source leaves a negative out, and how loudly.
CROSS_SKIPS = {
    "made_from_sentence1": (logging.INFO, "edits of sentence1 (the cross form edits the claim, sentence2)"),
    "pair_missing": (logging.WARNING, "their pair is not in the pairs file (rerun the negatives stage)"),
    "pair_changed": (
        logging.WARNING,
        "their pair's sentence2 is not the sentence they were made from (rerun the negatives stage)",
    ),
}


@dataclass
class SourceReport:
    name: str
    path: str
    status: str = "ok"  # ok | missing | empty
    rows: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    skipped: dict[str, int] | None = None  # rows left out by reason, for sources that leave rows out

    def summary(self) -> dict:
        summary = {"status": self.status, "rows": self.rows}
        if self.skipped is not None:
            summary["skipped"] = dict(self.skipped)
        return summary


@dataclass(frozen=True)
class SourcePaths:
    pairs: Path
    negatives: Path
    evolve: Path | None = None  # the teacher stage runs before evolve and reads no evolve source


Reader = Callable[[SourcePaths, Counter], Iterator[Candidate]]


@dataclass(frozen=True)
class SourceReader:
    inputs: tuple[str, ...]  # the SourcePaths fields it reads; the first holds its rows
    read: Reader
    skip_reasons: tuple[str, ...] = ()


def read_sources(sources: tuple[BuildSource, ...], paths: SourcePaths) -> list[SourceReport]:
    reports = []
    for source in sources:
        reader = _READERS.get(source)
        if reader is None:
            raise ParamsError(
                f"source {source.value!r} is read by the build stage alone (from build.labelled); "
                "the teacher and the judge list their labelled sets under labelled"
            )
        inputs = [getattr(paths, name) for name in reader.inputs]
        if any(path is None for path in inputs):
            raise ParamsError(f"source {source.value!r} reads the output of a stage that has not run here")
        report = SourceReport(name=source.value, path=" + ".join(str(path) for path in inputs))
        skipped: Counter[str] = Counter({reason: 0 for reason in reader.skip_reasons})
        absent = [path for path in inputs if not path.exists()]
        if absent:
            report.status = "missing"
            log.warning(
                "build: source %r is listed but %s does not exist; it contributes nothing",
                source.value,
                ", ".join(map(str, absent)),
            )
        else:
            report.candidates = list(reader.read(paths, skipped))
            report.rows = len(report.candidates)
            if not report.candidates:
                report.status = "empty"
                log.warning("build: source %r is listed but %s has no rows for it", source.value, inputs[0])
            else:
                log.info("build: source %r: %d rows from %s", source.value, report.rows, report.path)
        if reader.skip_reasons:
            report.skipped = {reason: skipped[reason] for reason in reader.skip_reasons}
            _log_skipped(source, skipped)
        reports.append(report)
    return reports


def _log_skipped(source: BuildSource, skipped: Counter) -> None:
    for reason, count in skipped.items():
        if count:
            level, why = CROSS_SKIPS[reason]
            log.log(level, "build: source %r left out %d negatives: %s", source.value, count, why)


def _originals(paths: SourcePaths, skipped: Counter) -> Iterator[Candidate]:
    for pair in read_jsonl(paths.pairs, Pair):
        yield Candidate(
            example_id=f"{pair.pair_id}-original",
            pmid=pair.pmid,
            premise=pair.sentence1,
            hypothesis=pair.sentence2,
            label=NON_CONTRADICTION,
            generator=GENERATORS[BuildSource.ORIGINAL],
            operator=pair.kind.value,
        )


def _evolved(target: TargetLabel) -> Reader:
    source = (
        BuildSource.EVONLI if target is TargetLabel.CONTRADICTION else BuildSource.EVONLI_NON_CONTRADICTION
    )
    generator = GENERATORS[source]
    contradiction = target is TargetLabel.CONTRADICTION

    def read(paths: SourcePaths, skipped: Counter) -> Iterator[Candidate]:
        for mutated in read_jsonl(paths.evolve, MutatedPair):
            if mutated.target_label is not target:
                continue
            yield Candidate(
                example_id=f"{mutated.pair_id}-{generator}",
                pmid=mutated.pmid,
                premise=mutated.sentence1,
                hypothesis=mutated.sentence2,
                label=CONTRADICTION if contradiction else NON_CONTRADICTION,
                generator=generator,
                operator=mutated.recipe,
                mutation_type=mutation_type(mutated.edits) if contradiction else None,
                original=mutated.original_sentence2,
            )

    return read


def _rule_candidate(negative: RuleNegative, premise: str, generator: str) -> Candidate:
    contradiction = negative.label is TargetLabel.CONTRADICTION
    return Candidate(
        example_id=f"{negative.negative_id}-{generator}",
        pmid=negative.pmid,
        premise=premise,
        hypothesis=negative.hypothesis,
        label=CONTRADICTION if contradiction else NON_CONTRADICTION,
        generator=generator,
        operator=negative.operator,
        mutation_type=mutation_type(negative.edits) if contradiction else None,
        original=negative.premise,
    )


def _rules_self(label: TargetLabel) -> Reader:
    """Each edit paired with the sentence it was made from."""

    def read(paths: SourcePaths, skipped: Counter) -> Iterator[Candidate]:
        for negative in read_jsonl(paths.negatives, RuleNegative):
            if negative.label is label:
                yield _rule_candidate(negative, negative.premise, GENERATORS[BuildSource.RULES_SELF])

    return read


def _rules_cross(label: TargetLabel) -> Reader:
    """Each edit of a pair's sentence2 paired with that pair's sentence1 (joined by pair id)."""

    def read(paths: SourcePaths, skipped: Counter) -> Iterator[Candidate]:
        pairs = {pair.pair_id: pair for pair in read_jsonl(paths.pairs, Pair)}
        for negative in read_jsonl(paths.negatives, RuleNegative):
            if negative.label is not label:
                continue
            if negative.source != "sentence2":
                skipped["made_from_sentence1"] += 1
                continue
            pair = pairs.get(negative.pair_id)
            if pair is None:
                skipped["pair_missing"] += 1
            elif pair.sentence2 != negative.premise:
                skipped["pair_changed"] += 1
            else:
                yield _rule_candidate(negative, pair.sentence1, GENERATORS[BuildSource.RULES_CROSS])

    return read


_READERS: dict[BuildSource, SourceReader] = {
    BuildSource.ORIGINAL: SourceReader(("pairs",), _originals),
    BuildSource.EVONLI: SourceReader(("evolve",), _evolved(TargetLabel.CONTRADICTION)),
    BuildSource.EVONLI_NON_CONTRADICTION: SourceReader(("evolve",), _evolved(TargetLabel.NON_CONTRADICTION)),
    BuildSource.RULES_SELF: SourceReader(("negatives",), _rules_self(TargetLabel.CONTRADICTION)),
    BuildSource.RULE_CONTROLS_SELF: SourceReader(("negatives",), _rules_self(TargetLabel.NON_CONTRADICTION)),
    BuildSource.RULES_CROSS: SourceReader(
        ("negatives", "pairs"), _rules_cross(TargetLabel.CONTRADICTION), tuple(CROSS_SKIPS)
    ),
    BuildSource.RULE_CONTROLS_CROSS: SourceReader(
        ("negatives", "pairs"), _rules_cross(TargetLabel.NON_CONTRADICTION), tuple(CROSS_SKIPS)
    ),
}
