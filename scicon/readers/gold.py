"""Gold in-domain pairs: sentence pairs the pipeline made, labelled by blinded annotators.

JSON Lines, one item per line: ``id``, ``pmid``, ``sentence1``, ``sentence2``, ``gold``
(the majority label: entailment / neutral / contradiction) and ``contradiction`` (1 when
most annotators said contradiction, which must agree with ``gold``), with how the pair
was made: ``source`` (original, rule_cross, control_cross, other_abstract, ...),
``operator`` for a rule edit, ``kind`` (result_conclusion / conclusion_conclusion) and
``garbled`` (most annotators found sentence2 visibly machine-edited), and for an edited
sentence2 its ``mutation_type`` where the file records it (the project's judgements do). Those
become the pair's facets, the strata that judge figures are broken down by (docs/judge.md).
An edited sentence2's ``original``, the sentence it was made from, is kept where the file records
it (a judge that reads edits is shown them). Pairs are grouped by abstract.
"""

from __future__ import annotations

from pathlib import Path

from scicon.io import read_json_objects
from scicon.readers import LOADERS
from scicon.readers.rows import NLI_LABELS, line_error, text
from scicon.records.benchmark import BenchmarkPair

FACETS = ("source", "operator", "kind", "garbled", "mutation_type")


def _facets(row: dict, path: Path, line: int) -> tuple[tuple[str, str], ...]:
    facets = [("source", text(row.get("source"), path, line, "source"))]
    for name in FACETS[1:]:
        value = row.get(name)
        if value is not None and str(value).strip():
            facets.append((name, str(value).strip()))
    return tuple(facets)


def _original(row: dict, path: Path, line: int) -> str | None:
    value = row.get("original")
    if value is None:
        return None
    return text(value, path, line, "original")


@LOADERS.register(
    "gold",
    keys="the item's `id`",
    groups="PMID",
    description="gold JSON Lines: id, pmid, sentence1, sentence2, gold (three-way), contradiction, "
    "and source / operator / kind / garbled / mutation_type as facets",
)
def load_gold(path: Path, options: None) -> list[BenchmarkPair]:
    pairs = []
    for line, row in read_json_objects(path):
        gold = row.get("gold")
        if gold not in NLI_LABELS:
            raise line_error(path, line, f"gold {gold!r} is not one of {', '.join(NLI_LABELS)}")
        flagged = row.get("contradiction", int(gold == "contradiction"))
        if flagged not in (0, 1) or bool(flagged) != (gold == "contradiction"):
            raise line_error(path, line, f"contradiction {flagged!r} disagrees with gold {gold!r}")
        pairs.append(
            BenchmarkPair(
                sentence1=text(row.get("sentence1"), path, line, "sentence1"),
                sentence2=text(row.get("sentence2"), path, line, "sentence2"),
                label=int(flagged),
                key=text(row.get("id"), path, line, "id"),
                group=text(str(row.get("pmid", "")), path, line, "pmid"),
                nli_label=gold,
                facets=_facets(row, path, line),
                original=_original(row, path, line),
            )
        )
    return pairs
