"""Claims to compare: the conclusions of ingested abstracts with their evidence, or a claims file.

A claims file is JSON Lines (``{"id", "text", "group"?, "pmid"?, "question"?}``) or
tab-separated with a header naming those columns. ``group`` is the study a claim comes from
(claims of one group are never paired); without one a claim's PMID is its group, else the
claim is a study of its own. ``question`` blocks: claims are paired only within their
question, which is then their question cluster. A missing or empty field, an unknown one, a
repeated id or bytes that are not UTF-8 stop the reader with the file and line named. The
same text twice in one study is kept once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from scicon.errors import InputFormatError, NoWorkError
from scicon.io import read_json_objects
from scicon.records.corpus import Abstract, Role
from scicon.records.find import Claim
from scicon.textdiff import normalised_sentence
from scicon.tsv import read_table

log = logging.getLogger(__name__)

FIELDS = ("id", "text", "group", "pmid", "question")
REQUIRED = ("id", "text")
Encoder = Callable[[Sequence[str]], np.ndarray]  # unit-length rows, one per text


def claims_from_abstracts(
    abstracts: Iterable[Abstract], roles: Sequence[Role], encode: Encoder
) -> list[Claim]:
    """Every sentence of ``roles`` of each abstract, with the RESULTS sentence of its abstract
    whose embedding is closest to it as its evidence (none when the abstract has no results)."""
    chosen: list[tuple[Abstract, int]] = []
    results: list[tuple[Abstract, int]] = []
    for abstract in abstracts:
        chosen += [(abstract, i) for i, sentence in enumerate(abstract.sentences) if sentence.role in roles]
        results += [(abstract, i) for i in abstract.indices(Role.RESULTS)]
    claim_vectors = encode([abstract.sentences[i].text for abstract, i in chosen])
    result_vectors = encode([abstract.sentences[i].text for abstract, i in results])
    rows_of: dict[str, list[int]] = {}
    for row, (abstract, _) in enumerate(results):
        rows_of.setdefault(abstract.pmid, []).append(row)
    claims = []
    for vector, (abstract, index) in zip(claim_vectors, chosen, strict=True):
        evidence = evidence_position = None
        rows = [row for row in rows_of.get(abstract.pmid, []) if results[row][1] != index]
        if rows:
            best = rows[int(np.argmax(result_vectors[rows] @ vector))]
            evidence_position = results[best][1]
            evidence = abstract.sentences[evidence_position].text
        sentence = abstract.sentences[index]
        claims.append(
            Claim(
                claim_id=f"{abstract.pmid}:{index}",
                text=sentence.text,
                group=abstract.pmid,
                pmid=abstract.pmid,
                role=sentence.role.value,
                position=index,
                evidence=evidence,
                evidence_position=evidence_position,
            )
        )
    return _deduplicated(claims)


def read_claims_file(path: str | Path) -> list[Claim]:
    """The claims of a JSONL or tab-separated claims file (see the module docstring)."""
    path = Path(path)
    rows = _jsonl_rows(path) if path.suffix == ".jsonl" else _tsv_rows(path)
    claims: list[Claim] = []
    seen: dict[str, int] = {}
    ungrouped = 0
    for number, row in rows:
        unknown = sorted(set(row) - set(FIELDS))
        if unknown:
            raise InputFormatError(
                str(path), f"unknown field {unknown[0]!r} (fields: {', '.join(FIELDS)})", number
            )
        for name in REQUIRED:
            if not isinstance(row.get(name), str) or not row[name].strip():
                raise InputFormatError(str(path), f"field {name!r} is missing or empty", number)
        claim_id = row["id"].strip()
        if claim_id in seen:
            raise InputFormatError(str(path), f"id {claim_id!r} repeats line {seen[claim_id]}", number)
        seen[claim_id] = number
        pmid = (row.get("pmid") or "").strip() or None
        group = (row.get("group") or "").strip() or pmid
        if group is None:
            ungrouped += 1
        question = (row.get("question") or "").strip() or None
        claims.append(
            Claim(
                claim_id=claim_id,
                text=row["text"].strip(),
                group=group or claim_id,
                pmid=pmid,
                question=question,
            )
        )
    if ungrouped:
        log.info("%s: %d claims have no group or PMID: each is a study of its own", path, ungrouped)
    return _deduplicated(claims)


def require_claims(claims: Sequence[Claim], origin: str) -> None:
    if not claims:
        raise NoWorkError(f"find: no claims in {origin}: nothing to compare (check find.claim_roles)")


def _deduplicated(claims: list[Claim]) -> list[Claim]:
    kept: dict[tuple[str, str], Claim] = {}
    for claim in claims:
        kept.setdefault((claim.group, normalised_sentence(claim.text)), claim)
    if len(kept) < len(claims):
        log.info("claims: %d repeated within their study, kept once", len(claims) - len(kept))
    return list(kept.values())


def _jsonl_rows(path: Path) -> Iterable[tuple[int, dict]]:
    for number, row in read_json_objects(path):
        fields = {}
        for key, value in row.items():
            if isinstance(value, bool) or not isinstance(value, str | int | float | None):
                # a list or an object printed as text would be a silently wrong claim
                raise InputFormatError(str(path), f"field {key!r} is not text or a number", number)
            fields[key] = value if value is None or isinstance(value, str) else str(value)
        yield number, fields


def _tsv_rows(path: Path) -> Iterable[tuple[int, dict]]:
    for row in read_table(path, required=REQUIRED):
        yield row.line, row.fields
