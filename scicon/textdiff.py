"""Words of a sentence: word-level differences between an original and its mutation, and what
"the same sentence" means.

Every generated example (EvoNLI mutation or rule-based negative) records the edits
that made it, so a reader can audit it and the build stage can classify the
mutation type (paper appendix D) from the changed words alone.
"""

from __future__ import annotations

import difflib
import re
import unicodedata

from scicon.records.base import WordEdit

# Words keep inner hyphens, apostrophes, decimal points and percent signs
# ("low-dose", "0.05", "12%"); other punctuation marks are tokens of their own.
_TOKEN = re.compile(r"\w+(?:[-'.,/]\w+)*%?|[^\w\s]")


def normalised_sentence(text: str) -> str:
    """The sentence as "the same sentence" compares everywhere (the build's duplicates, the finder's
    repeated claims, an annotator's copy of an item, an edit that changes nothing): one Unicode form
    (NFC, so a spreadsheet's decomposed accents match), lower case, runs of spacing as one space."""
    return " ".join(unicodedata.normalize("NFC", text).lower().split())


def words(text: str) -> list[str]:
    return _TOKEN.findall(text)


def word_diff(original: str, mutated: str) -> tuple[WordEdit, ...]:
    """The replace / insert / delete operations turning ``original`` into ``mutated``."""
    before, after = words(original), words(mutated)
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    edits = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        edits.append(
            WordEdit(
                op=tag,
                position=i1,
                original=" ".join(before[i1:i2]),
                replacement=" ".join(after[j1:j2]),
            )
        )
    return tuple(edits)


def edited_positions(original: str, mutated: str) -> set[int]:
    """Positions of ``mutated``'s words that an edit of ``original`` put there."""
    before, after = words(original), words(mutated)
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    return {j for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal" for j in range(j1, j2)}


def words_changed(edits: tuple[WordEdit, ...]) -> int:
    return sum(max(len(e.original.split()), len(e.replacement.split())) for e in edits)


# How a judge that reads edits is shown one (scicon.classifier_folder's EDIT_MARKING): the changed
# words in brackets, with the words they replaced, so "X reduced Y" -> "X increased Y" reads
# "X [reduced => increased] Y"; a word added "[+ not]", a word removed "[- not]".
EDIT_OPEN, EDIT_ARROW, EDIT_CLOSE, EDIT_ADDED, EDIT_REMOVED = "[", "=>", "]", "+", "-"


def marked_edit(original: str | None, edited: str) -> str:
    """``edited`` with its edit of ``original`` marked in place; unchanged when there is no original
    or no edit, so a pair that is not an edit reads as it always did."""
    if original is None or original == edited:
        return edited
    before, after = words(original), words(edited)
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    parts: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        old, new = " ".join(before[i1:i2]), " ".join(after[j1:j2])
        if tag == "equal":
            parts.append(new)
        elif tag == "replace":
            parts.append(f"{EDIT_OPEN}{old} {EDIT_ARROW} {new}{EDIT_CLOSE}")
        elif tag == "insert":
            parts.append(f"{EDIT_OPEN}{EDIT_ADDED} {new}{EDIT_CLOSE}")
        else:
            parts.append(f"{EDIT_OPEN}{EDIT_REMOVED} {old}{EDIT_CLOSE}")
    return " ".join(parts)
