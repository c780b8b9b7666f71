"""HealthVer (Sarrouti et al., 2021, "Evidence-based Fact-Checking of Health-related Claims").

CSV with ``evidence``, ``claim`` and ``label`` in Supports / Refutes / Neutral; the
pair is (evidence, claim). Pairs are grouped by claim: the same claim appears with
several pieces of evidence.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from scicon.readers import LOADERS, LoaderOptions
from scicon.readers.rows import line_error, line_key, read_csv, text
from scicon.records.benchmark import BenchmarkPair

LABELS = ("Supports", "Refutes", "Neutral")


class HealthVerOptions(LoaderOptions):
    contradiction: tuple[str, ...] = Field(min_length=1, description="labels meaning contradiction")


@LOADERS.register(
    "healthver",
    keys="`<file name>:<line>`",
    groups="claim",
    settings=HealthVerOptions,
    description="HealthVer CSV: evidence, claim, label (Supports, Refutes, Neutral); pair (evidence, claim)",
)
def load_healthver(path: Path, options: HealthVerOptions) -> list[BenchmarkPair]:
    pairs = []
    for line, row in read_csv(path):
        label = text(row.get("label"), path, line, "label")
        if label not in LABELS:
            raise line_error(path, line, f"unknown HealthVer label {label!r} ({', '.join(LABELS)})")
        claim = text(row.get("claim"), path, line, "claim")
        pairs.append(
            BenchmarkPair(
                sentence1=text(row.get("evidence"), path, line, "evidence"),
                sentence2=claim,
                label=int(label in options.contradiction),
                key=line_key(path, line),
                group=claim,
            )
        )
    return pairs
