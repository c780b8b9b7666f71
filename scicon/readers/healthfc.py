"""HealthFC (Vladika et al., 2024, "HealthFC: Verifying Health Claims with Evidence-Based
Medical Fact-Checking"), CC BY-NC-ND 4.0.

``Datensatz.csv``: an English claim (``en_claim``, phrased as a question), the sentences
of the systematic-review evidence that decide it (``en_top_sentences``) and ``label``
0 / 1 / 2 (supported / not enough information / refuted, mapped through ``labels``). A
pair is (evidence, claim). The claims are questions, so a refuted claim is a "no" to its
question rather than a contradicting statement: a weak teacher signal, kept for
completeness and off by default. Each claim is its own group.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from scicon.readers import LOADERS
from scicon.readers.labels import LabelMapOptions, log_left_out
from scicon.readers.rows import line_key, read_csv, text, three_way_pair
from scicon.records.benchmark import BenchmarkPair


@LOADERS.register(
    "healthfc",
    keys="`<file name>:<line>`",
    groups="claim",
    settings=LabelMapOptions,
    description="HealthFC CSV: en_top_sentences -> en_claim, label 0 / 1 / 2",
)
def load_healthfc(path: Path, options: LabelMapOptions) -> list[BenchmarkPair]:
    pairs = []
    left_out: Counter[str] = Counter()
    for line, row in read_csv(path):
        nli_label = options.nli_label(row.get("label"), path, line, "label")
        if nli_label is None:
            left_out[f"label {row.get('label')!r}"] += 1
            continue
        claim = text(row.get("en_claim"), path, line, "en_claim")
        evidence = text(row.get("en_top_sentences"), path, line, "en_top_sentences")
        pairs.append(three_way_pair(evidence, claim, nli_label, line_key(path, line), claim))
    log_left_out(path, left_out)
    return pairs
