"""Check-COVID (Wang et al., 2023, "Check-COVID: Fact-Checking COVID-19 News Claims with
Scientific Evidence"), MIT licence.

The release folder holds ``corpus.json`` (JSON Lines: ``cord_id``, ``abstract`` as a list
of sentences) and claim files (JSON Lines: ``id``, ``claim``, ``cord_id``, ``label`` in
SUPPORT / REFUTE / NOTENOUGHINFO, ``evidence_set`` of ``sent_index``). A pair is the
evidence sentences, in abstract order, against the claim. The same evidence often
carries a supported and a refuted claim that differ in a few words: minimal pairs, the
situation a contradiction judge must get right. Pairs are grouped by abstract.
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
    "check_covid",
    keys="the claim's `id`",
    groups="abstract (`cord_id`)",
    settings=ClaimsAgainstCorpusOptions,
    reads_folders=True,
    description="Check-COVID release folder: evidence sentences -> claim, SUPPORT / REFUTE / NOTENOUGHINFO",
)
def load_check_covid(folder: Path, options: ClaimsAgainstCorpusOptions) -> list[BenchmarkPair]:
    if not folder.is_dir():
        raise InputFormatError(str(folder), "the check_covid loader reads the release folder")
    corpus = read_corpus(folder / options.corpus, "cord_id")
    pairs = []
    left_out: Counter[str] = Counter()
    for name in options.claims:
        path = folder / name
        for line, row in read_json_objects(path):
            nli_label = options.nli_label(row.get("label"), path, line, "label")
            if nli_label is None:
                left_out[f"label {row.get('label')!r}"] += 1
                continue
            document = str(row.get("cord_id", ""))
            if document not in corpus:
                raise line_error(path, line, f"cord_id {document!r} is not in {options.corpus}")
            evidence = row.get("evidence_set")
            if not isinstance(evidence, list):
                raise line_error(path, line, "evidence_set must be a list")
            indices = [item.get("sent_index") for item in evidence if isinstance(item, dict)]
            premise = evidence_text(corpus[document], indices, path, line)
            claim = text(row.get("claim"), path, line, "claim")
            key = text(str(row.get("id", "")), path, line, "id")
            pairs.append(three_way_pair(premise, claim, nli_label, key, document))
    log_left_out(folder, left_out)
    return pairs
