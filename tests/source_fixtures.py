"""Stand-ins for the evolve and negatives stages' outputs, for tests and offline demos.

The build stage reads ``data/evolve/accepted.jsonl`` (:class:`MutatedPair`) and
``data/negatives/negatives.jsonl`` (:class:`RuleNegative`). Those stages live on
other branches; these helpers make small, deterministic files in the same formats
from real entailing pairs, with a handful of simple word edits (polarity flips,
inserted negation), so that build, finetune and evaluate can be exercised end to
end. They are test fixtures, not a contradiction generator.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path

from scicon.io import read_jsonl, write_jsonl
from scicon.records.base import TargetLabel
from scicon.records.evolve import MutatedPair
from scicon.records.negatives import RuleNegative
from scicon.records.pairs import Pair
from scicon.textdiff import word_diff

_FLIPS = {
    "increased": "decreased",
    "decreased": "increased",
    "increases": "decreases",
    "reduced": "increased",
    "reduces": "increases",
    "improved": "worsened",
    "higher": "lower",
    "lower": "higher",
    "more": "less",
    "effective": "ineffective",
    "safe": "unsafe",
    "significant": "nonsignificant",
    "better": "worse",
    "associated": "unassociated",
}
_AUXILIARIES = re.compile(r"\b(is|are|was|were|can|may|did|does|should|could|has|have)\b")
_SYNONYMS = {"patients": "participants", "study": "trial", "results": "findings", "treatment": "therapy"}


def contradict(sentence: str, negation_first: bool = False) -> tuple[str, str] | None:
    """A crude contradiction of ``sentence`` and the name of the edit, or None: a polarity
    flip, else an inserted "not" (the other way round with ``negation_first``)."""
    edits = (_negate, _flip) if negation_first else (_flip, _negate)
    return next((made for edit in edits if (made := edit(sentence)) is not None), None)


def _flip(sentence: str) -> tuple[str, str] | None:
    for word, flipped in _FLIPS.items():
        pattern = re.compile(rf"\b{word}\b")
        if pattern.search(sentence):
            return pattern.sub(flipped, sentence, count=1), "polarity_flip"
    return None


def _negate(sentence: str) -> tuple[str, str] | None:
    match = _AUXILIARIES.search(sentence)
    if match:
        return sentence[: match.end()] + " not" + sentence[match.end() :], "negation_insert"
    return None


def paraphrase(sentence: str) -> str | None:
    for word, synonym in _SYNONYMS.items():
        pattern = re.compile(rf"\b{word}\b")
        if pattern.search(sentence):
            return pattern.sub(synonym, sentence, count=1)
    return None


def mutated_pairs(pairs: Iterable[Pair], non_contradiction_every: int = 4) -> list[MutatedPair]:
    """An accepted contradiction per pair that allows one; every n-th pair also a paraphrase."""
    out = []
    for number, pair in enumerate(pairs):
        made = contradict(pair.sentence2)
        if made is not None:
            out.append(_mutated(pair, made[0], TargetLabel.CONTRADICTION))
        if non_contradiction_every and number % non_contradiction_every == 0:
            same = paraphrase(pair.sentence2)
            if same is not None:
                out.append(_mutated(pair, same, TargetLabel.NON_CONTRADICTION))
    return out


def _mutated(pair: Pair, sentence2: str, target: TargetLabel) -> MutatedPair:
    return MutatedPair(
        pair_id=pair.pair_id,
        pmid=pair.pmid,
        kind=pair.kind,
        sentence1=pair.sentence1,
        original_sentence2=pair.sentence2,
        sentence2=sentence2,
        target_label=target,
        confidence=0.9,
        similarity=0.8,
        claim=0.95,
        iteration=1,
        edits=word_diff(pair.sentence2, sentence2),
        recipe="fixture",
    )


def rule_negatives(
    pairs: Iterable[Pair], sentences: tuple[str, ...] = ("sentence1", "sentence2")
) -> list[RuleNegative]:
    """Per pair and edited sentence, a crude contradiction and a synonym-swap control where
    they apply (the negatives stage edits both sentences by default too). Negation comes
    first here, so that the cross form of a rule negative is not also an evolve fixture."""
    out = []
    for pair in pairs:
        for source in sentences:
            sentence = getattr(pair, source)
            made = contradict(sentence, negation_first=True)
            if made is not None:
                out.append(_negative(pair, source, made[0], TargetLabel.CONTRADICTION, made[1]))
            same = paraphrase(sentence)
            if same is not None:
                out.append(_negative(pair, source, same, TargetLabel.NON_CONTRADICTION, "synonym_control"))
    return out


def _negative(pair: Pair, source: str, hypothesis: str, label: TargetLabel, operator: str) -> RuleNegative:
    sentence = getattr(pair, source)
    return RuleNegative(
        negative_id=f"{pair.pair_id}-{'s1' if source == 'sentence1' else 's2'}-{operator}",
        pair_id=pair.pair_id,
        pmid=pair.pmid,
        source=source,
        premise=sentence,
        hypothesis=hypothesis,
        label=label,
        operator=operator,
        edits=word_diff(sentence, hypothesis),
    )


def write_source_fixtures(pairs_path: Path, evolve_path: Path, negatives_path: Path) -> tuple[int, int]:
    pairs = list(read_jsonl(pairs_path, Pair))
    return (
        write_jsonl(evolve_path, mutated_pairs(pairs)),
        write_jsonl(negatives_path, rule_negatives(pairs)),
    )


if __name__ == "__main__":
    # python -m tests.source_fixtures PAIRS EVOLVE NEGATIVES  (offline demo without those stages)
    counts = write_source_fixtures(*(Path(argument) for argument in sys.argv[1:4]))
    print(f"wrote {counts[0]} mutated pairs and {counts[1]} rule negatives")
