"""Step two of an audit: score the annotators' files against the key; metrics, report, disputed items."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from scicon.annotation.blinding import KEY_FILE, MANIFEST_FILE
from scicon.audit.annotations import read_annotations
from scicon.audit.figures import disagreements, score_audit
from scicon.audit.params import AuditParams
from scicon.audit.report import render_report
from scicon.errors import InputFormatError, InputNotFoundError
from scicon.headline import write_report_and_headline
from scicon.io import atomic_open, read_jsonl
from scicon.records.audit import AuditItem
from scicon.stage import add_metrics_arguments


def add_score_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--sample", required=True, help="the sample folder written by the export step")
    parser.add_argument("--annotations", required=True, help="folder of the annotators' files")
    add_metrics_arguments(parser)
    parser.add_argument("--report", required=True, help="output markdown report")
    parser.add_argument("--disagreements", required=True, help="output JSONL: items the majority disputes")
    return parser


def run_score(args: argparse.Namespace, params: AuditParams) -> dict:
    key = Path(args.sample) / KEY_FILE
    if not key.exists():
        raise InputNotFoundError(f"{key}: no audit sample (run `dvc repro audit_sample` first)")
    items = list(read_jsonl(key, AuditItem))
    manifest_path = Path(args.sample) / MANIFEST_FILE
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    except json.JSONDecodeError as error:
        raise InputFormatError(str(manifest_path), f"not valid JSON: {error.msg}", error.lineno) from error
    annotations = read_annotations(Path(args.annotations), items)
    metrics, votes = score_audit(items, annotations, manifest, params)
    write_report_and_headline("audit", metrics, args.figures, args.metrics)
    with atomic_open(args.report) as handle:
        handle.write(render_report(metrics, votes, manifest, params))
    with atomic_open(args.disagreements) as handle:
        for row in disagreements(votes):
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    return metrics
