"""The build stage's library entry point: read the sources, assemble SciCon, write it with its card."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from scicon.dataset.baseline import hypothesis_only_roc_auc
from scicon.dataset.build import SPLITS, BuiltDataset, build_dataset, build_metrics
from scicon.dataset.card import render_card
from scicon.dataset.export import write_split
from scicon.dataset.gate import Gate
from scicon.dataset.params import BuildParams, BuildSource
from scicon.dataset.sources import SourcePaths, SourceReport, read_sources
from scicon.errors import NoWorkError
from scicon.io import atomic_open
from scicon.labelled.candidates import LABELLED_PREFIX, labelled_candidates, weighted
from scicon.params import Thresholds
from scicon.readers.sets import labelled_base

log = logging.getLogger(__name__)


@dataclass
class SciconBuild:
    dataset: BuiltDataset
    reports: list[SourceReport]
    metrics: dict
    card: str
    gate_curve: list[dict] = field(default_factory=list)  # precision and yield by verifier threshold


def assemble_scicon(
    paths: SourcePaths,
    params: BuildParams,
    thresholds: Thresholds | None = None,
    labelled_root: str | None = None,
    gate: Gate | None = None,
) -> SciconBuild:
    """SciCon from the listed sources; with ``gate``, a generated contradiction becomes label 1
    only when it passes it (scicon.dataset.gate)."""
    reports: list[SourceReport] = []
    for source in params.sources:  # in the listed order: the first copy of a pair wins
        if source is BuildSource.LABELLED:
            reports.append(labelled_report(params, labelled_root))
        else:
            reports += read_sources((source,), paths)
    candidates = [candidate for report in reports for candidate in report.candidates]
    gate_report = None
    if gate is not None:
        candidates, gate_report = gate.apply(candidates)
    labels = {candidate.label for candidate in candidates}
    if labels != {0, 1}:
        summary = gate_report.summary() if gate_report is not None else None
        if summary and summary["offered"] and 1 not in labels:
            removed = ", ".join(f"{gate} {figure['count']}" for gate, figure in summary["removed"].items())
            raise NoWorkError(
                f"build: the gate removed all {summary['offered']} generated contradictions ({removed}), "
                "so no classifier can be trained: lower build.min_verifier or build.min_precision, "
                "or raise build.max_garbled"
            )
        raise NoWorkError(_one_label_message(reports, labels))
    dataset = build_dataset(
        candidates,
        dev_fraction=params.dev_fraction,
        test_fraction=params.test_fraction,
        seed=params.seed,
        held_out=params.held_out_ids(),
    )
    baseline = None
    if params.hypothesis_only_baseline:
        evaluation_split = dataset.splits["test"] or dataset.splits["dev"]
        baseline = hypothesis_only_roc_auc(
            dataset.splits["train"], evaluation_split, dataset.hypotheses, params.seed
        )
    if BuildSource.LABELLED in params.sources:  # after the baseline: it judges each pair once
        dataset.splits["train"] = weighted(dataset.splits["train"], params, params.seed)
    metrics = build_metrics(dataset, reports, params, baseline)
    if gate_report is not None:
        metrics["gate"] = gate_report.summary()
    card = render_card(dataset, reports, metrics, params, thresholds)
    log.info(
        "build: %d examples (%s)",
        metrics["examples"],
        ", ".join(f"{split} {metrics[split]['examples']}" for split in SPLITS),
    )
    return SciconBuild(
        dataset=dataset,
        reports=reports,
        metrics=metrics,
        card=card,
        gate_curve=gate_report.curve if gate_report is not None else [],
    )


# What to change when no listed source gives a label, by the label missing.
_REMEDIES = {
    1: (
        "evolve accepted no pair: search more pairs (evolve.max_pairs, evolve.pair_kinds), lower `target`, "
        "or add rules_cross or labelled to build.sources"
    ),
    0: "add original (the entailing pairs) or rule_controls_cross to build.sources",
}


def _one_label_message(reports: list[SourceReport], labels: set[int]) -> str:
    present = ", ".join(f"{r.name} ({r.status}, {r.rows} rows)" for r in reports)
    missing = 1 if 1 not in labels else 0
    name = "contradictions" if missing == 1 else "non-contradictions"
    return (
        f"build: the sources in build.sources give no {name}, so no classifier can be trained "
        f"({present}); {_REMEDIES[missing]}"
    )


def labelled_report(params: BuildParams, labelled_root: str | None) -> SourceReport:
    """The source ``labelled``: every set of ``build.labelled``, contradiction against the rest."""
    candidates, counts = labelled_candidates(params, labelled_root, section="build")
    report = SourceReport(name=BuildSource.LABELLED.value, path=str(labelled_base(labelled_root)))
    report.candidates, report.rows = candidates, len(candidates)
    report.status = "ok" if candidates else "empty"
    log.info(
        "build: source 'labelled': %d rows (%s)",
        report.rows,
        ", ".join(f"{LABELLED_PREFIX}{name} {count}" for name, count in counts.items()),
    )
    return report


def write_scicon(build: SciconBuild, folder: Path) -> None:
    """Write every split (JSONL + Parquet) and the card into ``folder``, removing stale files."""
    folder.mkdir(parents=True, exist_ok=True)
    expected = {f"{split}.{ext}" for split in SPLITS for ext in ("jsonl", "parquet")} | {"README.md"}
    for stale in folder.iterdir():
        if stale.is_file() and stale.name not in expected:
            stale.unlink()
    for split in SPLITS:
        write_split(folder, split, build.dataset.splits[split])
    with atomic_open(folder / "README.md") as handle:
        handle.write(build.card)
