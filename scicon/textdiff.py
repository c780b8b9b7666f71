"""Word-level differences between an original sentence and its mutation.

Every generated example (EvoNLI mutation or rule-based negative) records the edits
that made it, so a reader can audit it and the build stage can classify the
mutation type (paper appendix D) from the changed words alone.
"""

from __future__ import annotations

import difflib
import re

from scicon.records.base import WordEdit

# Words keep inner hyphens, apostrophes, decimal points and percent signs
# ("low-dose", "0.05", "12%"); other punctuation marks are tokens of their own.
_TOKEN = re.compile(r"\w+(?:[-'.,/]\w+)*%?|[^\w\s]")


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
