"""ManConCorpus (Alamri & Stevenson, 2016), the paper's Cardio benchmark.

XML whose ``CLAIM`` elements carry a ``QUESTION`` attribute naming the review
question and an ``ASSERTION`` of ``YS`` or ``NO``. Two claims answering the same
question form a pair: opposite assertions are a contradiction, equal ones not. A
pair's key names both claims by their position in the file; pairs are grouped by
question.
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from pathlib import Path

from scicon.errors import InputFormatError
from scicon.readers import LOADERS
from scicon.records.benchmark import BenchmarkPair


@LOADERS.register(
    "mancon",
    keys="`<file name>:CLAIM#<i>+CLAIM#<j>`",
    groups="question",
    description="ManConCorpus XML: claims on the same QUESTION with opposite ASSERTION (YS/NO) contradict",
)
def load_mancon(path: Path, options: None) -> list[BenchmarkPair]:
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        line = error.position[0] if error.position else None
        raise InputFormatError(str(path), f"malformed XML: {error}", line) from error
    by_question: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for number, claim in enumerate(root.iter("CLAIM"), start=1):
        question = (claim.get("QUESTION") or "").strip()
        assertion = (claim.get("ASSERTION") or "").strip().upper()
        text = " ".join("".join(claim.itertext()).split())
        if not question or assertion not in ("YS", "NO") or not text:
            raise InputFormatError(
                str(path), f"CLAIM #{number} needs a QUESTION, an ASSERTION of YS or NO, and text"
            )
        by_question[question].append((text, assertion, number))
    pairs = []
    for question in sorted(by_question):
        claims = by_question[question]
        for (text1, assertion1, number1), (text2, assertion2, number2) in itertools.combinations(claims, 2):
            if text1 == text2:
                continue
            key = f"{path.name}:CLAIM#{number1}+CLAIM#{number2}"
            pairs.append(BenchmarkPair(text1, text2, int(assertion1 != assertion2), key, group=question))
    return pairs
