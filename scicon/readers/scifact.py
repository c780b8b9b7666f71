"""Claims checked against cited documents in the SciFact format: Citation-Integrity
(Sarol et al., 2024, "Assessing Citation Integrity in Biomedical Publications"), MIT
licence, in the relabelled form that ships a corpus of cited sentences.

The folder holds a claims file (JSON Lines: ``id``, ``claim``, ``evidence`` as
``{doc_id: [{"sentences": [...], "label": ...}]}``) and a corpus (JSON Lines: ``doc_id``,
``abstract`` as a list of sentences). Each evidence set is one pair: its sentences, in
document order, against the claim, labelled through ``labels``. Claims without evidence
have no premise and are left out (counted in the log). Pairs are grouped by claim.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from scicon.errors import InputFormatError
from scicon.io import read_json_objects
from scicon.readers import LOADERS
from scicon.readers.labels import ClaimsAgainstCorpusOptions, log_left_out
from scicon.readers.rows import (
    evidence_text,
    line_error,
    read_corpus,
    text,
    three_way_pair,
)
from scicon.records.benchmark import BenchmarkPair


@LOADERS.register(
    "scifact",
    keys="`<claim id>:<doc id>:<evidence number>`",
    groups="claim",
    settings=ClaimsAgainstCorpusOptions,
    reads_folders=True,
    description="SciFact-format folder (Citation-Integrity): cited sentences -> claim, per evidence set",
)
def load_scifact(folder: Path, options: ClaimsAgainstCorpusOptions) -> list[BenchmarkPair]:
    if not folder.is_dir():
        raise InputFormatError(str(folder), "the scifact loader reads a folder of claims and corpus")
    corpus = read_corpus(folder / options.corpus, "doc_id")
    pairs = []
    left_out: Counter[str] = Counter()
    for name in options.claims:
        path = folder / name
        for line, row in read_json_objects(path):
            claim = text(row.get("claim"), path, line, "claim")
            evidence = row.get("evidence")
            if not isinstance(evidence, dict):
                raise line_error(path, line, "evidence must be an object of document ids")
            if not evidence:
                left_out["no evidence"] += 1
            for document, sets in evidence.items():
                if str(document) not in corpus:
                    raise line_error(path, line, f"document {document!r} is not in {options.corpus}")
                if not isinstance(sets, list):
                    raise line_error(path, line, f"evidence of document {document!r} must be a list")
                for number, item in enumerate(sets):
                    raw = item.get("label") if isinstance(item, dict) else None
                    nli_label = options.nli_label(raw, path, line, "evidence label")
                    if nli_label is None:
                        left_out[f"label {raw!r}"] += 1
                        continue
                    premise = evidence_text(corpus[str(document)], item.get("sentences") or [], path, line)
                    key = f"{row.get('id')}:{document}:{number}"
                    pairs.append(three_way_pair(premise, claim, nli_label, key, claim))
    log_left_out(folder, left_out)
    return pairs
