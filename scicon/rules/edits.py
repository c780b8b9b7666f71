"""Edits of an analysed sentence, applied with the sentence's spacing and capitals kept.

Operators describe a change as token-span replacements (:class:`Edit`) rather than
string surgery, so :func:`apply_edits` can keep a sentence-initial capital, lower-case
a displaced first word that is not a name, agree "a"/"an" with a new word, and keep
spaces tidy in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scicon.rules import resources
from scicon.rules.inflection import indefinite_article, match_case
from scicon.rules.tagging import Analysis


def _keeps_capital(word: str) -> bool:
    """Acronyms and names keep their capital inside a sentence; common words do not."""
    if any(c.isupper() for c in word[1:]) or any(c.isdigit() for c in word):
        return True
    return not resources.lemminflect().getAllLemmas(word.lower())


@dataclass(frozen=True)
class Edit:
    """Replace tokens ``first``..``last`` (inclusive) with ``text``.

    ``first > last`` inserts ``text`` before token ``first``.
    """

    first: int
    last: int
    text: str


def apply_edits(analysis: Analysis, edits: Sequence[Edit]) -> str:
    """The sentence with ``edits`` applied: sentence-initial capitals kept, articles agreed, spaces tidy."""
    tokens = analysis.tokens
    text = analysis.text
    pieces: list[tuple[int, int, str]] = []
    for edit in sorted(edits, key=lambda e: e.first):
        if edit.first > edit.last:  # insertion before token `first`
            if edit.first == 0:
                # "Significant correlations" -> "No significant correlations"
                head = tokens[0]
                lowered = head.text if _keeps_capital(head.text) else head.text[:1].lower() + head.text[1:]
                pieces.append((head.start, head.end, f"{edit.text} {lowered}"))
                continue
            at = tokens[edit.first].start if edit.first < len(tokens) else len(text)
            pieces.append((at, at, edit.text + " "))
            continue
        start, end = tokens[edit.first].start, tokens[edit.last].end
        replacement = edit.text
        if not replacement:  # a deletion takes one neighbouring space with it
            if end < len(text) and text[end] == " ":
                end += 1
            elif start > 0 and text[start - 1] == " ":
                start -= 1
        if edit.first == 0:
            replacement = match_case(tokens[0].text, replacement)
        pieces.append((start, end, replacement))
        # agree "a"/"an" with the new first word
        if edit.first > 0 and tokens[edit.first - 1].lower in ("a", "an") and replacement:
            article = tokens[edit.first - 1]
            wanted = match_case(article.text, indefinite_article(replacement.split()[0]))
            if wanted != article.text and not any(p[0] == article.start for p in pieces):
                pieces.append((article.start, article.end, wanted))
    out, cursor = [], 0
    for start, end, replacement in sorted(pieces):
        out.append(text[cursor:start])
        out.append(replacement)
        cursor = end
    out.append(text[cursor:])
    result = "".join(out).strip()
    return result[:1].upper() + result[1:] if text[:1].isupper() else result
