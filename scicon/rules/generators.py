"""Dataset-level generators of the `negatives` stage: rule negatives for every pair.

Two generators, chosen by ``negatives.generator``:

- ``operators``: the operators of ``candidates.operators``, drawn uniformly per source sentence
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

from scicon.candidates import FluencyScorer
from scicon.grounding import Grounding, is_grounded
from scicon.records.base import Skip, TargetLabel
from scicon.records.corpus import Abstract
from scicon.records.negatives import RuleNegative
from scicon.records.pairs import Pair
from scicon.rules.mutator import RuleEdit, RuleMutator, draw
from scicon.rules.operator_sets import CONTROL_OPERATORS, resolve, rule_operator
from scicon.rules.operators import Proposal
from scicon.rules.params import NegativesParams

log = logging.getLogger(__name__)

SKIP_REASONS = (
    "no_operator_applies",
    "not_grounded",
    "not_fluent",
    "no_candidate_passes",
    "duplicate_negative",
    "abstract_missing",
)
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


def make_generator(
    params: NegativesParams, operators: Sequence[str]
) -> OperatorsGenerator | ModifiedEdaGenerator:
    if params.generator == "modified_eda":
        return ModifiedEdaGenerator()
    return OperatorsGenerator(resolve(operators, "candidates.operators"))


@dataclass
class _Slot:
    """One sentence of one pair to edit, with its candidates before the fluency check."""

    pair: Pair
    source: str
    sentence: str
    contradictions: list[RuleEdit]
    controls: list[RuleEdit]


def build_negatives(
    pairs: Sequence[Pair],
    abstracts: dict[str, Abstract],
    params: NegativesParams,
    operators: Sequence[str],
    grounding: Grounding | None = None,
    fluency: FluencyScorer | None = None,
    progress: bool = True,
) -> NegativesResult:
    """Rule negatives of every pair of ``params.pair_kinds``, made by ``operators``. A
    contradiction candidate must be grounded in the pair's other sentence (when ``grounding``
    is given) and fluent (when ``fluency`` is); controls must be fluent. Rejected candidates go
    to the skipped records."""
    generator = make_generator(params, operators)
    controls = RuleMutator(CONTROL_OPERATORS) if params.control_ratio > 0 else None
    skipped: list[Skip] = []
    transformable: Counter[str] = Counter()
    untouched = 0
    kinds_left_out: Counter[str] = Counter()
    slots: list[_Slot] = []
    # the fluency check needs a model; it runs once over every slot's candidates together
    examined = params.candidates_per_sentence if fluency is not None else params.max_per_pair
    for pair in tqdm(pairs, desc="negatives", unit="pair", disable=not progress, mininterval=5):
        if pair.kind not in params.pair_kinds:
            kinds_left_out[pair.kind.value] += 1
            continue
        context = abstracts.get(pair.pmid)
        if context is None:
            skipped.append(Skip(reason="abstract_missing", where=pair.pair_id, detail=pair.pmid))
        touched = set()
        for source in params.sentences:
            sentence = getattr(pair, source)
            other = pair.sentence2 if source == "sentence1" else pair.sentence1
            where = f"{pair.pair_id} {source}"
            rng = random.Random(f"{params.seed}:{pair.pair_id}:{source}")
            proposals = generator.mutator.proposals(sentence, context)
            touched.update(name for name, items in proposals.items() if items)
            drawn = generator.choose(sentence, proposals, sum(map(len, proposals.values())), rng)
            contradictions = []
            for edit in drawn:
                if len(contradictions) == examined:
                    break
                if grounding is not None and not is_grounded(sentence, edit.text, other, grounding):
                    skipped.append(Skip(reason="not_grounded", where=where, detail=edit.text))
                    continue
                contradictions.append(edit)
            if not drawn:
                skipped.append(Skip(reason="no_operator_applies", where=where, detail=sentence))
            wanted = math.ceil(params.control_ratio * params.max_per_pair) if controls else 0
            spare = examined - params.max_per_pair if fluency is not None else 0
            made_controls = controls.candidates(sentence, wanted + spare, rng, context) if wanted else []
            slots.append(_Slot(pair, source, sentence, contradictions, made_controls))
        transformable.update(touched)
        if not touched:
            untouched += 1
    scorer = _FirstFluent(fluency, progress)
    contradictions = scorer.first([(s.sentence, s.contradictions, params.max_per_pair) for s in slots])
    control_requests = []
    for slot, (kept, _) in zip(slots, contradictions, strict=True):
        rng = random.Random(f"{params.seed}:{slot.pair.pair_id}:{slot.source}:controls")
        wanted = _control_count(params.control_ratio, len(kept), rng) if slot.controls else 0
        control_requests.append((slot.sentence, slot.controls, wanted))
    controls_kept = scorer.first(control_requests)
    negatives: list[RuleNegative] = []
    seen: set[tuple[str, str]] = set()
    for slot, (kept, not_fluent), (kept_controls, controls_not_fluent) in zip(
        slots, contradictions, controls_kept, strict=True
    ):
        where = f"{slot.pair.pair_id} {slot.source}"
        skipped += [Skip(reason="not_fluent", where=where, detail=edit.text) for edit in not_fluent]
        if slot.contradictions and not kept:
            skipped.append(Skip(reason="no_candidate_passes", where=where, detail=slot.sentence))
        skipped += [Skip(reason="not_fluent", where=where, detail=edit.text) for edit in controls_not_fluent]
        for edit in [*kept, *kept_controls]:
            key = (slot.sentence, edit.text)
            if key in seen:
                skipped.append(Skip(reason="duplicate_negative", where=where, detail=edit.text))
                continue
            seen.add(key)
            negatives.append(_record(slot.pair, slot.source, slot.sentence, edit, len(negatives)))
    if kinds_left_out:
        log.info("negatives: pairs of kinds not edited (negatives.pair_kinds): %s", dict(kinds_left_out))
    result = NegativesResult(negatives, skipped)
    result.metrics = _metrics(pairs, params, generator, negatives, skipped, transformable, untouched)
    result.metrics["pairs_of_kinds_not_edited"] = dict(sorted(kinds_left_out.items()))
    if fluency is not None:
        result.metrics["fluency"] = fluency.backbone.metrics()
        # candidates after the last one kept are never scored (their count: what the rounds save)
        result.metrics["fluency"]["candidates_scored"] = scorer.scored
        result.metrics["fluency"]["candidates_not_needed"] = scorer.not_needed
    for reason, count in Counter(s.reason for s in skipped).items():
        log.info("skipped %d: %s", count, reason)
    return result


class _FirstFluent:
    """The first ``wanted`` fluent candidates of each request, in order, scoring no candidate after
    the last one kept.

    Scored in rounds: each round scores, for every request still short, as many of its next
    candidates as it still needs, all in one batched and cached model call; so a round's
    candidates are exactly those the in-order check would examine, and those after the last
    one kept are never scored. Without a scorer every candidate passes."""

    CHUNK = 256  # rewrites per model call

    def __init__(self, fluency: FluencyScorer | None, progress: bool):
        self.fluency = fluency
        self.progress = progress
        self.scored = 0
        self.not_needed = 0

    def first(
        self, requests: Sequence[tuple[str, Sequence[RuleEdit], int]]
    ) -> list[tuple[list[RuleEdit], list[RuleEdit]]]:
        """Per (sentence, candidates, wanted): the kept candidates and those found not fluent."""
        kept: list[list[RuleEdit]] = [[] for _ in requests]
        rejected: list[list[RuleEdit]] = [[] for _ in requests]
        position = [0] * len(requests)
        while True:
            batch: list[tuple[int, RuleEdit]] = []
            for index, (_, candidates, wanted) in enumerate(requests):
                need = max(wanted - len(kept[index]), 0)
                batch += [(index, edit) for edit in candidates[position[index] : position[index] + need]]
                position[index] += need
            if not batch:
                sizes = [len(candidates) for _, candidates, _ in requests]
                self.not_needed += sum(max(size - at, 0) for size, at in zip(sizes, position, strict=True))
                return list(zip(kept, rejected, strict=True))
            passes = self._passes([(requests[index][0], edit.text) for index, edit in batch])
            for (index, edit), fluent in zip(batch, passes, strict=True):
                (kept if fluent else rejected)[index].append(edit)

    def _passes(self, pairs: list[tuple[str, str]]) -> list[bool]:
        if self.fluency is None:
            return [True] * len(pairs)
        unique = list(dict.fromkeys(pairs))
        self.scored += len(unique)
        fluent: dict[tuple[str, str], bool] = {}
        starts = range(0, len(unique), self.CHUNK)
        for start in tqdm(starts, desc="fluency", unit="batch", disable=not self.progress or len(starts) < 2):
            chunk = unique[start : start + self.CHUNK]
            drops = self.fluency.drops([o for o, _ in chunk], [r for _, r in chunk])
            fluent.update({pair: self.fluency.passes(drop) for pair, drop in zip(chunk, drops, strict=True)})
        return [fluent[pair] for pair in pairs]


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
