"""Dataset-level generators of the `negatives` stage: rule negatives for every pair.

Two generators, chosen by ``negatives.generator``:

- ``operators``: the operators listed in params, drawn uniformly per source sentence
  (:func:`scicon.rules.mutator.draw`), plus label-preserving synonym controls;
- ``modified_eda``: the "Modified EDA" baseline of the EvoNLI paper's Table 2 (section
  6.4: EDA adapted to contradictions by prioritising antonym substitution and
  negation insertion). EDA (Wei & Zou, 2019) edits random words with WordNet; here
  its synonym replacement becomes an antonym from any WordNet sense
  (``eda_antonym``), tried first, and negation insertion is the fallback when a
  sentence has no antonym.

Each record holds the edit and the unedited sentence it was made from (``premise``)
with its pair's id: a rule edit contradicts its own source sentence. The build stage
pairs it either with that sentence (``rules_self``) or, for edits of sentence2, with
the pair's sentence1 (``rules_cross``; see :mod:`scicon.dataset.sources`).
"""

from __future__ import annotations

import logging
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from tqdm import tqdm

from scicon.records.base import Skip, TargetLabel
from scicon.records.corpus import Abstract
from scicon.records.negatives import RuleNegative
from scicon.records.pairs import Pair
from scicon.rules.mutator import RuleEdit, RuleMutator, draw
from scicon.rules.operator_sets import CONTROL_OPERATORS, resolve, rule_operator
from scicon.rules.operators import Proposal
from scicon.rules.params import NegativesParams

log = logging.getLogger(__name__)

SKIP_REASONS = ("no_operator_applies", "duplicate_negative", "abstract_missing")
EDA_PRIORITY = ("eda_antonym", "negation_insert")


@dataclass
class NegativesResult:
    negatives: list[RuleNegative]
    skipped: list[Skip]
    metrics: dict = field(default_factory=dict)


class OperatorsGenerator:
    """Every listed operator has an equal chance per draw."""

    name = "operators"

    def __init__(self, operators: Sequence[str]):
        self.mutator = RuleMutator(operators)

    def choose(self, sentence: str, proposals: dict[str, list[Proposal]], n: int, rng: random.Random):
        return draw(sentence, proposals, n, rng)


class ModifiedEdaGenerator:
    """Antonym substitution first; negation insertion only where no antonym exists."""

    name = "modified_eda"

    def __init__(self, operators: Sequence[str] = EDA_PRIORITY):
        self.mutator = RuleMutator(operators)

    def choose(self, sentence: str, proposals: dict[str, list[Proposal]], n: int, rng: random.Random):
        for name in self.mutator.operators:  # the first operator with proposals wins
            if proposals[name]:
                return draw(sentence, {name: proposals[name]}, n, rng)
        return []


def make_generator(params: NegativesParams) -> OperatorsGenerator | ModifiedEdaGenerator:
    if params.generator == "modified_eda":
        return ModifiedEdaGenerator()
    return OperatorsGenerator(resolve(params.operators, "negatives.operators"))


def build_negatives(
    pairs: Sequence[Pair], abstracts: dict[str, Abstract], params: NegativesParams, progress: bool = True
) -> NegativesResult:
    generator = make_generator(params)
    controls = RuleMutator(CONTROL_OPERATORS) if params.control_ratio > 0 else None
    negatives: list[RuleNegative] = []
    skipped: list[Skip] = []
    seen: set[tuple[str, str]] = set()
    transformable: Counter[str] = Counter()
    untouched = 0
    for pair in tqdm(pairs, desc="negatives", unit="pair", disable=not progress, mininterval=5):
        context = abstracts.get(pair.pmid)
        if context is None:
            skipped.append(Skip(reason="abstract_missing", where=pair.pair_id, detail=pair.pmid))
        touched = set()
        for source in params.sentences:
            sentence = getattr(pair, source)
            rng = random.Random(f"{params.seed}:{pair.pair_id}:{source}")
            proposals = generator.mutator.proposals(sentence, context)
            touched.update(name for name, items in proposals.items() if items)
            made = generator.choose(sentence, proposals, params.max_per_pair, rng)
            if not made:
                skipped.append(
                    Skip(reason="no_operator_applies", where=f"{pair.pair_id} {source}", detail=sentence)
                )
            wanted_controls = _control_count(params.control_ratio, len(made), rng) if controls else 0
            made += controls.candidates(sentence, wanted_controls, rng, context) if wanted_controls else []
            for edit in made:
                key = (sentence, edit.text)
                if key in seen:
                    skipped.append(
                        Skip(reason="duplicate_negative", where=f"{pair.pair_id} {source}", detail=edit.text)
                    )
                    continue
                seen.add(key)
                negatives.append(_record(pair, source, sentence, edit, len(negatives)))
        transformable.update(touched)
        if not touched:
            untouched += 1
    result = NegativesResult(negatives, skipped)
    result.metrics = _metrics(pairs, params, generator, negatives, skipped, transformable, untouched)
    for reason, count in Counter(s.reason for s in skipped).items():
        log.info("skipped %d: %s", count, reason)
    return result


def _control_count(ratio: float, contradictions: int, rng: random.Random) -> int:
    """``ratio`` controls per contradiction, rounded stochastically so the overall ratio holds."""
    expected = ratio * contradictions
    whole = math.floor(expected)
    return whole + (1 if rng.random() < expected - whole else 0)


def _record(pair: Pair, source: str, sentence: str, edit: RuleEdit, number: int) -> RuleNegative:
    label = rule_operator(edit.operator).label
    return RuleNegative(
        negative_id=f"{pair.pair_id}-{'s1' if source == 'sentence1' else 's2'}-{edit.operator}-{number}",
        pair_id=pair.pair_id,
        pmid=pair.pmid,
        source=source,
        premise=sentence,
        hypothesis=edit.text,
        label=label,
        operator=edit.operator,
        rule=edit.rule,
        edits=edit.edits,
    )


def _metrics(pairs, params, generator, negatives, skipped, transformable, untouched) -> dict:
    total = len(pairs)
    per_operator = Counter(n.operator for n in negatives)
    reasons = Counter(s.reason for s in skipped)
    operators = list(generator.mutator.operators)
    contradictions = sum(1 for n in negatives if n.label is TargetLabel.CONTRADICTION)
    return {
        "generator": generator.name,
        "pairs": total,
        "negatives": len(negatives),
        "contradictions": contradictions,
        "controls": len(negatives) - contradictions,
        "pairs_untouched": untouched,
        "pairs_untouched_share": round(untouched / total, 4) if total else 0.0,
        "negatives_per_operator": {
            name: per_operator.get(name, 0) for name in [*operators, *CONTROL_OPERATORS]
        },
        "pairs_transformable_share": {
            name: round(transformable.get(name, 0) / total, 4) if total else 0.0 for name in operators
        },
        "skipped": {reason: reasons.get(reason, 0) for reason in SKIP_REASONS},
    }
