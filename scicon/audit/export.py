"""Step one of an audit: draw the sample from a build, write the answer key and the blinded files."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import get_args

from scicon.annotation.blinding import KEY_FILE, MANIFEST_FILE
from scicon.audit.blinded import write_blinded
from scicon.audit.params import AuditParams
from scicon.audit.sample import draw_sample
from scicon.errors import InputNotFoundError
from scicon.io import read_jsonl, write_json, write_jsonl
from scicon.records.dataset import Example

SPLITS = get_args(Example.model_fields["split"].annotation)  # the build's split files, by name


def add_export_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--scicon", required=True, help="folder of the SciCon build ({split}.jsonl)")
    parser.add_argument(
        "--sample", required=True, help="output folder: the answer key and the sample manifest"
    )
    parser.add_argument("--blinded", required=True, help="output folder: one blinded file per annotator")
    return parser


def run_export(args: argparse.Namespace, params: AuditParams) -> None:
    examples: list[Example] = []
    for split in SPLITS:
        path = Path(args.scicon) / f"{split}.jsonl"
        if not path.exists():
            raise InputNotFoundError(f"{path}: SciCon split not found (run `dvc repro build` first)")
        examples += read_jsonl(path, Example)
    sample = draw_sample(examples, params)
    write_jsonl(Path(args.sample) / KEY_FILE, sample.items)
    write_json(Path(args.sample) / MANIFEST_FILE, sample.manifest(params))
    write_blinded(sample.items, params.annotators, params.seed, Path(args.blinded))
