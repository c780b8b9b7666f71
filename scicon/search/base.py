"""What a search gets (its parts) and returns for one pair, and how every search checks a candidate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from scicon.constraints.base import Constraint, ConstraintCheck
from scicon.goal.base import TargetConfidence
from scicon.records.corpus import Abstract
from scicon.records.evolve import CandidateTrace, GenerationTrace, SearchStatus
from scicon.records.pairs import Pair
from scicon.transformations.base import Transformation

NO_MUTATION = "no_mutation"
NO_TARGET_ANSWER = "target_low_mass"

# the scores a candidate's trace keeps (an edit constraint's verdict is its rejected_by)
_RECORDED_SCORES = ("similarity", "claim")


@dataclass
class _Scores:
    similarity: float | None = None
    claim: float | None = None
    confidence: float | None = None
    rejected_by: str | None = None


@dataclass(frozen=True)
class CandidateChecks:
    """What a candidate must pass, in one order for every search (TextAttack's ``Attack``): the
    edit constraints against the member it was made from, then the other constraints, cheapest
    first, then the goal's confidence. A candidate that fails a check is sent to no later one,
    and each distinct text is scored once."""

    goal: TargetConfidence
    edits: Sequence[Constraint] = ()
    constraints: Sequence[Constraint] = ()

    def __post_init__(self):
        object.__setattr__(self, "edits", tuple(self.edits))
        object.__setattr__(self, "constraints", tuple(sorted(self.constraints, key=lambda c: c.cost)))

    def without_constraints(self) -> CandidateChecks:
        """The edit constraints and the goal alone."""
        return replace(self, constraints=())

    def check(
        self, pair: Pair, proposals: Sequence[tuple[str, Sequence[str | None]]]
    ) -> list[list[CandidateTrace]]:
        """Each candidate's trace, per (parent, candidates): rejected_by names the first check it
        failed (None: it passed them all), with the scores it was given on the way."""
        not_edits = {
            (m, j): name
            for m, (parent, texts) in enumerate(proposals)
            for j, name in enumerate(rejected_edits(self.edits, pair, parent, texts))
            if name is not None
        }
        scores = self._score(
            {
                text
                for m, (_, texts) in enumerate(proposals)
                for j, text in enumerate(texts)
                if text is not None and (m, j) not in not_edits
            },
            pair,
        )
        traces = []
        for m, (_, texts) in enumerate(proposals):
            member = []
            for j, text in enumerate(texts):
                if text is None:
                    member.append(CandidateTrace(text=None, rejected_by=NO_MUTATION))
                elif (m, j) in not_edits:
                    member.append(CandidateTrace(text=text, rejected_by=not_edits[(m, j)]))
                else:
                    member.append(CandidateTrace(text=text, **vars(scores[text])))
            traces.append(member)
        return traces

    def _score(self, texts: set[str], pair: Pair) -> dict[str, _Scores]:
        """Every distinct candidate once: constraints in cost order, the goal only for survivors."""
        ordered = sorted(texts)
        scores = {text: _Scores() for text in ordered}
        alive = ordered
        for constraint in self.constraints:
            checks = [ConstraintCheck(text, pair.sentence1, pair.sentence2) for text in alive]
            values = constraint.scores(checks)
            survivors = []
            for text, value in zip(alive, values, strict=True):
                if constraint.kind in _RECORDED_SCORES:
                    setattr(scores[text], constraint.kind, value)
                if value is None:
                    scores[text].rejected_by = f"{constraint.kind}_low_mass"
                elif constraint.passes(value):
                    survivors.append(text)
                else:
                    scores[text].rejected_by = constraint.kind
            alive = survivors
        for text, confidence in zip(
            alive,
            self.goal.confidences([(pair.sentence1, text) for text in alive], pair.sentence2),
            strict=True,
        ):
            scores[text].confidence = confidence
            if confidence is None:
                scores[text].rejected_by = NO_TARGET_ANSWER
        return scores


def rejected_edits(
    edits: Sequence[Constraint], pair: Pair, parent: str, texts: Sequence[str | None]
) -> list[str | None]:
    """Per candidate, the first edit constraint it fails (None: passes them all, or no text)."""
    rejected: list[str | None] = [None] * len(texts)
    alive = [j for j, text in enumerate(texts) if text is not None]
    for edit in edits:
        checks = [ConstraintCheck(texts[j], pair.sentence1, pair.sentence2, parent) for j in alive]
        survivors = []
        for j, score in zip(alive, edit.scores(checks), strict=True):
            if score is not None and edit.passes(score):
                survivors.append(j)
            else:
                rejected[j] = edit.name
        alive = survivors
    return rejected


@dataclass(frozen=True)
class SearchParts:
    checks: CandidateChecks
    transformation: Transformation


@dataclass(frozen=True)
class Accepted:
    text: str
    confidence: float | None
    similarity: float | None
    claim: float | None
    iteration: int


@dataclass(frozen=True)
class SearchOutcome:
    status: SearchStatus
    original_confidence: float | None
    generations: tuple[GenerationTrace, ...] = ()
    accepted: Accepted | None = None


class Search(Protocol):
    name: str
    # the most generations one pair's search makes: the rows of the success-by-generation plot
    max_generations: int

    def run(self, pair: Pair, seed: int, context: Abstract | None = None) -> SearchOutcome: ...


class SearchFactory(Protocol):
    """A registered search: its validated settings (None without any) and the other parts, assembled."""

    def __call__(self, settings: Any, parts: SearchParts) -> Search: ...
