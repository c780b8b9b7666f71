"""Edit constraints: a candidate must be a real edit of the member it was made from.

EvoNLI mutates words of sentence2 (REPLACEWORDS); a "candidate" that is empty, that
repeats its parent, that copies sentence1, or that rewrites most of the sentence (a
prompt echo such as "Here is the rewritten sentence2:") is not a word mutation, whatever
a teacher makes of it. These checks are free string comparisons, run before every model
score, and each rejection is counted under the constraint's name (TextAttack guards its
searches the same way with ``MaxWordsPerturbed`` and ``RepeatModification``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import Field

from scicon.assembly_context import AssemblyContext
from scicon.constraints import CONSTRAINTS
from scicon.constraints.base import EDIT_COST, ConstraintCheck
from scicon.grounding import Grounding, is_grounded
from scicon.params import Section
from scicon.textdiff import edited_positions, normalised_sentence, word_diff, words, words_changed

_NOT_A_WORD = re.compile(r"[^a-z0-9%.]+")


def normalised(sentence: str) -> str:
    """The same sentence (:func:`scicon.textdiff.normalised_sentence`) with its punctuation folded
    too, since changing a comma is no word mutation: "Drug X reduced pain." == "drug x reduced pain"."""
    return _NOT_A_WORD.sub(" ", normalised_sentence(sentence)).strip(" .")


class EditConstraint:
    """A yes/no check per candidate; the score is 1.0 (passes) or 0.0."""

    kind = "edit"
    cost = EDIT_COST
    name = "edit"

    def scores(self, checks: Sequence[ConstraintCheck]) -> list[float | None]:
        return [1.0 if self.allows(check) else 0.0 for check in checks]

    def passes(self, score: float) -> bool:
        return score >= 1.0

    def allows(self, check: ConstraintCheck) -> bool:
        raise NotImplementedError


class NotEmpty(EditConstraint):
    name = "not_empty"

    def allows(self, check: ConstraintCheck) -> bool:
        return bool(normalised(check.candidate))


class Changed(EditConstraint):
    """Not its parent again, and not the pair's original sentence2 (which is no mutation)."""

    name = "changed"

    def allows(self, check: ConstraintCheck) -> bool:
        text = normalised(check.candidate)
        return text != normalised(check.parent) and text != normalised(check.original)


class NotSentence1(EditConstraint):
    name = "not_sentence1"

    def allows(self, check: ConstraintCheck) -> bool:
        return normalised(check.candidate) != normalised(check.sentence1)


class MaxWordsChanged(EditConstraint):
    """At most ``fraction`` of the parent's words replaced, inserted or deleted."""

    name = "max_words_changed"

    def __init__(self, fraction: float):
        self.fraction = fraction

    def allows(self, check: ConstraintCheck) -> bool:
        return changed_fraction(check.parent, check.candidate) <= self.fraction


class NoRepeat(EditConstraint):
    """A later generation leaves alone the words earlier ones changed. Two edits of one word
    undo each other or say the original again in other words ("poorer" -> "better" ->
    "worse", "raises" -> "lowers" -> "does not lower"), and the teacher can still be fooled
    by the detour; each word of sentence2 is mutated once (TextAttack's
    ``RepeatModification``)."""

    name = "no_repeat"

    def allows(self, check: ConstraintCheck) -> bool:
        edited = edited_positions(check.original, check.parent)
        if not edited:
            return True
        for edit in word_diff(check.parent, check.candidate):
            span = range(edit.position, edit.position + len(words(edit.original)))
            # an insertion touches the words on either side of it
            touched = span if len(span) else (edit.position - 1, edit.position)
            if any(position in edited for position in touched):
                return False
        return True


def changed_fraction(parent: str, candidate: str) -> float:
    """Words changed (per :func:`scicon.textdiff.words_changed`) over the parent's word count."""
    parent_words = max(len(words(parent)), 1)
    return words_changed(word_diff(parent, candidate)) / parent_words


@CONSTRAINTS.register("edit.not_empty", description="the rewrite has words")
def not_empty(settings: None, context: AssemblyContext) -> NotEmpty:
    return NotEmpty()


@CONSTRAINTS.register("edit.changed", description="differs from its parent and from the original sentence2")
def changed(settings: None, context: AssemblyContext) -> Changed:
    return Changed()


@CONSTRAINTS.register("edit.not_sentence1", description="is not a copy of sentence1")
def not_sentence1(settings: None, context: AssemblyContext) -> NotSentence1:
    return NotSentence1()


class MaxWordsChangedSettings(Section):
    fraction: float = Field(gt=0.0, le=1.0, description="share of a parent's words an edit may change")


@CONSTRAINTS.register(
    "edit.max_words_changed",
    settings=MaxWordsChangedSettings,
    description="at most a fraction of the parent's words changed",
)
def max_words_changed(settings: MaxWordsChangedSettings, context: AssemblyContext) -> MaxWordsChanged:
    return MaxWordsChanged(settings.fraction)


@CONSTRAINTS.register("edit.no_repeat", description="leaves alone the words earlier generations changed")
def no_repeat(settings: None, context: AssemblyContext) -> NoRepeat:
    return NoRepeat()


class Grounded(EditConstraint):
    """The edit lands on what sentence1 speaks to (:mod:`scicon.grounding`), judged
    against the pair's original sentence2 so a later generation cannot drift off it."""

    name = "grounded"

    def __init__(self, grounding: Grounding):
        self.grounding = grounding

    def allows(self, check: ConstraintCheck) -> bool:
        return is_grounded(check.original, check.candidate, check.sentence1, self.grounding)


class GroundedSettings(Section):
    grounding: Grounding = Field(description="how near a word sentence1 shares an edit must land")


@CONSTRAINTS.register(
    "edit.grounded",
    settings=GroundedSettings,
    description="every changed word near a word sentence1 shares, in its clause",
    reads={"grounding": "candidates.grounding"},
)
def grounded(settings: GroundedSettings, context: AssemblyContext) -> Grounded:
    return Grounded(settings.grounding)
