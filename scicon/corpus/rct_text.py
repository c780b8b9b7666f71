"""The PubMed RCT line format (PubMed 200k RCT: a Dataset for Sequential Sentence
Classification in Medical Abstracts).

An abstract starts with a ``###<PMID>`` header, followed by one ``ROLE<TAB>sentence``
line per sentence; blank lines separate abstracts. The official release text is
tokenised ("knee osteoarthritis ( OA ) ."); such sentences are detokenised so that
prompts and rules see ordinary prose. Lines starting with a single ``#`` (not
``###``) are comments, which lets a corpus file carry its own provenance notes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Literal

from scicon.corpus.model import RawAbstract
from scicon.errors import InputFormatError
from scicon.records.corpus import Role, Sentence

ROLE_NAMES = tuple(role.value for role in Role)

# The release text puts a space before every comma and before the final full stop;
# ordinary prose never ends a sentence with " ." and almost never writes " , ".
_TOKENISED = re.compile(r" \.$| , ")
_SPACES = re.compile(r"\s+")

Detokenize = Literal["auto", "always", "never"]


@lru_cache(maxsize=1)
def _detokenizer():
    from sacremoses import MosesDetokenizer

    return MosesDetokenizer(lang="en")


def looks_tokenised(text: str) -> bool:
    return bool(_TOKENISED.search(text))


def normalise_sentence(text: str, detokenize: Detokenize) -> tuple[str, bool]:
    """Collapse whitespace and, where asked or detected, undo release tokenisation."""
    text = _SPACES.sub(" ", text).strip()
    if detokenize == "always" or (detokenize == "auto" and looks_tokenised(text)):
        detokenised = _detokenizer().detokenize(text.split(" "))
        return detokenised, detokenised != text
    return text, False


def parse_rct_lines(
    lines: Iterable[str], origin: str, detokenize: Detokenize = "auto"
) -> Iterator[RawAbstract]:
    """Yield abstracts in file order; malformed lines raise :class:`InputFormatError`.

    Empty abstracts (a header with no sentences) and repeated PMIDs are yielded as
    they are: deciding what to skip, and counting it, is the ingest step's job.
    """
    current: RawAbstract | None = None
    for number, raw_line in enumerate(lines, start=1):
        line = raw_line.rstrip("\r\n")
        if not line.strip():
            continue
        if line.startswith("###"):
            if current is not None:
                yield current
            pmid = line[3:].strip()
            if not pmid or any(char.isspace() for char in pmid):
                raise InputFormatError(origin, f"header {line!r} does not hold one PMID", number)
            current = RawAbstract(pmid=pmid, origin=f"{origin}:{number}")
            continue
        if line.startswith("#"):
            continue
        if current is None:
            raise InputFormatError(origin, "sentence line before any '###<PMID>' header", number)
        role_name, tab, text = line.partition("\t")
        if not tab:
            raise InputFormatError(
                origin, f"expected ROLE<TAB>sentence, found no tab in {line[:60]!r}", number
            )
        role_key = role_name.strip().upper()
        if role_key not in ROLE_NAMES:
            raise InputFormatError(
                origin,
                f"unknown role {role_name!r} (expected one of {', '.join(ROLE_NAMES)})",
                number,
            )
        sentence, changed = normalise_sentence(text, detokenize)
        if not sentence:
            raise InputFormatError(origin, f"empty {role_key} sentence", number)
        current.sentences.append(Sentence(role=Role(role_key), text=sentence))
        current.detokenized += changed
    if current is not None:
        yield current
