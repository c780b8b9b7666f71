"""The sentences a claim model learns from, labelled claim or not: a corpus' rhetorical roles,
a labelled claim file (expert claim annotations as JSON lines of ``sentences`` and ``labels``
per abstract, or plain JSONL or CSV rows of ``sentence``, ``label``), the meta-text no
corpus shows (the prompts' instructions, chat-model answer framing), and the reporting lines
a corpus files among its conclusions (registrations, funding, calls for more research). The model that learns
from them: :mod:`scicon.fitted.claim_model`.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from scicon.errors import InputFormatError, InputNotFoundError
from scicon.io import read_json_objects
from scicon.prompts import TARGET_LABEL_WORDS, instruction_texts
from scicon.records.corpus import Abstract, Role

__data__ = ("claim_data",)

ANSWER_FRAMING = Path(__file__).parent / "claim_data" / "answer_framing.txt"
REPORTING_LINES = Path(__file__).parent / "claim_data" / "reporting_lines.txt"
META_TEXT_GROUP = "meta-text"
REPORTING_GROUP = "reporting"


@dataclass(frozen=True)
class LabelledSentence:
    text: str
    claim: bool | None  # None: a sentence of a role that is neither, scored in the report only
    group: str  # the abstract it comes from: parts never split one
    role: Role | None = None


def examples_from_roles(
    abstracts: Sequence[Abstract], claim_roles: Sequence[Role], non_claim_roles: Sequence[Role]
) -> list[LabelledSentence]:
    """Sentences labelled by role; those of roles in neither list get no label (not trained on)."""
    claims, non_claims = set(claim_roles), set(non_claim_roles)
    return [
        LabelledSentence(
            s.text, True if s.role in claims else False if s.role in non_claims else None, a.pmid, s.role
        )
        for a in abstracts
        for s in a.sentences
    ]


_TRUE = {"1", "true", "yes", "claim"}
_FALSE = {"0", "false", "no", "non-claim", "not_claim", "none"}


def _label(value: object, origin: str, line: int) -> bool:
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise InputFormatError(origin, f"label {value!r} is not a claim label (1/0, true/false, yes/no)", line)


def read_labelled_claims(path: str | Path) -> list[LabelledSentence]:
    """Sentences with claim labels from a claims JSON-lines file, a JSONL or a CSV file.

    JSON lines: either one abstract per line with ``sentences`` and ``labels`` (its
    sentences are one group), or one sentence per line with ``sentence`` and ``label``
    (and optionally ``group``). CSV: columns ``sentence`` and ``label`` (and ``group``).
    Rows without a group are each their own.
    """
    source = Path(path)
    if not source.is_file():
        raise InputNotFoundError(f"labelled claim file {source} does not exist")
    origin = str(source)
    if source.suffix.lower() in (".csv", ".tsv"):
        return _read_claims_csv(source, "\t" if source.suffix.lower() == ".tsv" else ",")
    examples: list[LabelledSentence] = []
    for number, record in read_json_objects(source):
        if "sentences" in record and "labels" in record:
            sentences, labels = record["sentences"], record["labels"]
            if (
                not isinstance(sentences, list)
                or not isinstance(labels, list)
                or len(sentences) != len(labels)
            ):
                raise InputFormatError(origin, "'sentences' and 'labels' must be lists of one length", number)
            group = str(record.get("paper_id", f"line {number}"))
            examples += [
                LabelledSentence(str(text).strip(), _label(label, origin, number), group)
                for text, label in zip(sentences, labels, strict=True)
                if str(text).strip()
            ]
        elif "sentence" in record and "label" in record:
            group = str(record.get("group", f"line {number}"))
            examples.append(
                LabelledSentence(
                    str(record["sentence"]).strip(), _label(record["label"], origin, number), group
                )
            )
        else:
            raise InputFormatError(
                origin,
                "expected 'sentences' and 'labels' (one abstract) or 'sentence' and 'label'",
                number,
            )
    return examples


def _read_claims_csv(source: Path, delimiter: str) -> list[LabelledSentence]:
    origin = str(source)
    with open(source, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        if not reader.fieldnames or not {"sentence", "label"} <= set(reader.fieldnames):
            raise InputFormatError(origin, "needs a header with 'sentence' and 'label' columns", 1)
        return [
            LabelledSentence(
                row["sentence"].strip(),
                _label(row["label"], origin, number),
                row.get("group") or f"row {number}",
            )
            for number, row in enumerate(reader, start=2)
            if (row["sentence"] or "").strip()
        ]


def meta_text_examples() -> list[str]:
    """Non-claims a corpus never shows: the prompts' instructions and chat-model answer framing."""
    texts = []
    for unit in instruction_texts():
        if "{target_label}" in unit:
            texts += [unit.format(target_label=word) for word in TARGET_LABEL_WORDS.values()]
        elif "{" not in unit:
            texts.append(unit)
    return sorted(set(texts) | set(_listed(ANSWER_FRAMING)))


def reporting_examples() -> list[str]:
    """Non-claims abstracts file under their conclusions: registrations, funding, declarations,
    calls for more research (``claim_data/reporting_lines.txt``)."""
    return sorted(set(_listed(REPORTING_LINES)))


def without_reporting_claims(
    examples: Sequence[LabelledSentence], lines: Sequence[str], similarity: float
) -> tuple[list[LabelledSentence], int]:
    """``examples`` with each claim that reads like one of the reporting ``lines`` (TF-IDF cosine of
    word uni- and bigrams at least ``similarity``) unlabelled: a registration a corpus files under
    its conclusions is no evidence of what a claim is. Returns the examples and how many changed."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    claims = [number for number, example in enumerate(examples) if example.claim]
    if not claims or not lines:
        return list(examples), 0
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True).fit(
        [e.text for e in examples] + list(lines)
    )
    closest = (vectorizer.transform([examples[n].text for n in claims]) @ vectorizer.transform(lines).T).max(
        axis=1
    )
    reporting = {
        number for number, value in zip(claims, closest.toarray().ravel(), strict=True) if value >= similarity
    }
    changed = [replace(e, claim=None) if n in reporting else e for n, e in enumerate(examples)]
    return changed, len(reporting)


def _listed(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]
