"""The candidates an annotation round samples from: what the project's generators made.

Every source of pairs the judge will meet becomes a candidate with how it was made: the
extracted pairs themselves, the rule negatives and label-preserving controls in cross form
(sentence1 with the edited sentence2), the contradictions EvoNLI accepted, the rewrites it
nearly accepted (passed every check, teacher confidence just under ``target``), and the
closest conclusion of another abstract. Pairs from reserved abstracts are left out and
counted; a pair already judged in an earlier round is left out too.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from scicon.dataset.taxonomy import mutation_type
from scicon.errors import InputNotFoundError
from scicon.io import read_jsonl
from scicon.params import meets_threshold
from scicon.records.base import TargetLabel
from scicon.records.corpus import Abstract, Role
from scicon.records.dataset import Example
from scicon.records.evolve import PairTrace, SearchStatus
from scicon.records.negatives import RuleNegative
from scicon.records.pairs import Pair, PairKind
from scicon.textdiff import word_diff

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PoolCandidate:
    candidate_id: str
    pmid: str
    pair_id: str
    kind: str
    source: str
    generator: str
    operator: str | None
    mutation_type: str | None
    sentence1: str
    sentence2: str
    pmid2: str | None = None
    # the sentence an edited sentence2 was made from (None: the pair is not an edit)
    original: str | None = None

    @property
    def stratum(self) -> str:
        """Rule edits by operator, EvoNLI's by mutation type (its operator is the recipe), else by kind."""
        detail = self.mutation_type if self.generator == "evonli" else self.operator
        return f"{self.source}/{detail or self.kind}"


@dataclass
class Pool:
    candidates: list[PoolCandidate] = field(default_factory=list)
    reserved_skipped: int = 0
    already_judged: int = 0
    duplicates: int = 0

    def counts(self) -> dict[str, int]:
        return dict(sorted(Counter(c.stratum for c in self.candidates).items()))


def candidate_id(sentence1: str, sentence2: str) -> str:
    """The pair's identity across rounds and builds: a digest of its two sentences."""
    return hashlib.sha256(f"{sentence1.strip()}\t{sentence2.strip()}".encode()).hexdigest()[:16]


def _originals(pairs: Iterable[Pair]) -> Iterable[PoolCandidate]:
    for pair in pairs:
        yield PoolCandidate(
            candidate_id(pair.sentence1, pair.sentence2),
            pair.pmid,
            pair.pair_id,
            pair.kind.value,
            "original",
            "extraction",
            None,
            None,
            pair.sentence1,
            pair.sentence2,
        )


def _rule_negatives(negatives: Iterable[RuleNegative], pairs: dict[str, Pair]) -> Iterable[PoolCandidate]:
    for negative in negatives:
        pair = pairs.get(negative.pair_id)
        if pair is None or negative.source != "sentence2":
            continue  # the cross form edits sentence2 of a pair the pool knows
        contradiction = negative.label == TargetLabel.CONTRADICTION
        yield PoolCandidate(
            candidate_id(pair.sentence1, negative.hypothesis),
            pair.pmid,
            pair.pair_id,
            pair.kind.value,
            "rule_cross" if contradiction else "control_cross",
            "rules",
            negative.operator,
            mutation_type(negative.edits) if contradiction else None,
            pair.sentence1,
            negative.hypothesis,
            original=negative.premise,
        )


def _evonli(traces: Iterable[PairTrace], kinds: dict[str, str], target: float, margin: float):
    for trace in traces:
        if trace.target_label != TargetLabel.CONTRADICTION:
            continue
        kind = kinds.get(trace.pair_id, "result_conclusion")
        if trace.status == SearchStatus.SUCCEEDED and trace.accepted is not None:
            accepted = trace.accepted
            yield PoolCandidate(
                candidate_id(accepted.sentence1, accepted.sentence2),
                trace.pmid,
                trace.pair_id,
                kind,
                "evonli_accepted",
                "evonli",
                accepted.recipe,
                mutation_type(accepted.edits),
                accepted.sentence1,
                accepted.sentence2,
                original=trace.original_sentence2,
            )
            continue
        closest = None
        for generation in trace.generations:
            for member in generation.members:
                for candidate in member.candidates:
                    if (
                        candidate.text is None
                        or candidate.rejected_by is not None
                        or candidate.confidence is None
                    ):
                        continue
                    if (
                        meets_threshold(candidate.confidence, target - margin)
                        and not meets_threshold(candidate.confidence, target)
                        and (closest is None or candidate.confidence > closest.confidence)
                    ):
                        closest = candidate
        if closest is not None:
            yield PoolCandidate(
                candidate_id(trace.sentence1, closest.text),
                trace.pmid,
                trace.pair_id,
                kind,
                "evonli_near_miss",
                "evonli",
                None,
                mutation_type(word_diff(trace.original_sentence2, closest.text)),
                trace.sentence1,
                closest.text,
                original=trace.original_sentence2,
            )


def _other_abstracts(pairs: list[Pair], abstracts: list[Abstract], per_pair: int) -> Iterable[PoolCandidate]:
    """sentence1 of each pair with the conclusions of other abstracts closest to it (TF-IDF):
    on topic enough to be read with care, about another study."""
    if per_pair == 0 or not pairs:
        return
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.neighbors import NearestNeighbors

    conclusions = [
        (abstract.pmid, sentence.text)
        for abstract in abstracts
        for sentence in abstract.sentences
        if sentence.role == Role.CONCLUSIONS
    ]
    if len({pmid for pmid, _ in conclusions}) < 2:
        return
    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit(
        [text for _, text in conclusions]
    )
    index = NearestNeighbors(metric="cosine").fit(vectorizer.transform([text for _, text in conclusions]))
    wanted = min(len(conclusions), per_pair + 8)  # room for the pair's own abstract's conclusions
    _, neighbours = index.kneighbors(
        vectorizer.transform([pair.sentence1 for pair in pairs]), n_neighbors=wanted
    )
    for pair, row in zip(pairs, neighbours, strict=True):
        found = [conclusions[i] for i in row if conclusions[i][0] != pair.pmid][:per_pair]
        for pmid2, text in found:
            yield PoolCandidate(
                candidate_id(pair.sentence1, text),
                pair.pmid,
                pair.pair_id,
                pair.kind.value,
                "other_abstract",
                "other_abstract",
                None,
                None,
                pair.sentence1,
                text,
                pmid2=pmid2,
            )


_BUILT_PAIR_ID = re.compile(r"^(?P<pair_id>.+-(?P<kind>rc|cc)-\d+-\d+)-")
_KIND_OF_SHORT = {kind.short: kind.value for kind in PairKind}


@dataclass
class BuiltRows:
    """A built SciCon's rows as pool candidates, and the rows that could not be oriented."""

    candidates: list[PoolCandidate]
    unoriented: int = 0


def built_candidates(examples: Iterable[Example]) -> BuiltRows:
    """What a build put into SciCon, as the annotators read it: A the unedited sentence, B the
    edited one (a build randomises the order, so each edit is oriented by its pair's original
    row). Label-1 rows become ``evonli_accepted`` / ``rule_cross`` items, synonym controls
    ``control_cross``, original rows ``original``; labelled-set rows are not the project's own."""
    examples = list(examples)
    originals = {e.example_id.removesuffix("-original"): e for e in examples if e.generator == "original"}
    built = BuiltRows([])
    for example in examples:
        matched = _BUILT_PAIR_ID.match(example.example_id)
        if matched is None or example.generator.startswith("labelled"):
            continue
        pair_id, kind = matched["pair_id"], _KIND_OF_SHORT[matched["kind"]]
        if example.generator == "original":
            built.candidates.append(
                PoolCandidate(
                    candidate_id(example.sentence1, example.sentence2),
                    example.pmid,
                    pair_id,
                    kind,
                    "original",
                    "extraction",
                    None,
                    None,
                    example.sentence1,
                    example.sentence2,
                )
            )
            continue
        original = originals.get(pair_id)
        unedited = {original.sentence1, original.sentence2} if original is not None else set()
        if example.sentence1 in unedited and example.sentence2 not in unedited:
            kept, edited = example.sentence1, example.sentence2
        elif example.sentence2 in unedited and example.sentence1 not in unedited:
            kept, edited = example.sentence2, example.sentence1
        else:
            built.unoriented += 1
            continue
        made_from = original.sentence2 if kept == original.sentence1 else original.sentence1
        contradiction = example.label == 1
        evonli = example.generator == "evonli"
        built.candidates.append(
            PoolCandidate(
                candidate_id(kept, edited),
                example.pmid,
                pair_id,
                kind,
                ("evonli_accepted" if evonli else "rule_cross") if contradiction else "control_cross",
                "evonli" if evonli else "rules",
                example.operator,
                example.mutation_type,
                kept,
                edited,
                original=made_from,
            )
        )
    if built.unoriented:
        log.info("built SciCon: %d edited rows without their original pair row, left out", built.unoriented)
    return built


def build_pool(
    pairs_path: Path | None,
    negatives_path: Path | None,
    trace_path: Path | None,
    abstracts_path: Path | None,
    reserved: frozenset[str],
    judged: frozenset[str],
    target: float,
    near_miss_margin: float,
    other_abstract_per_pair: int,
    built: Path | None = None,
) -> Pool:
    """Every candidate of the generators' outputs (or of a built SciCon folder's splits), less
    reserved abstracts and judged pairs."""
    pairs = list(read_jsonl(pairs_path, Pair)) if pairs_path is not None else []
    by_id = {pair.pair_id: pair for pair in pairs}
    streams: list[Iterable[PoolCandidate]] = [_originals(pairs)]
    if built is not None:
        split_files = sorted(built.glob("*.jsonl"))
        if not split_files:
            raise InputNotFoundError(f"{built}: no split (*.jsonl) of a built SciCon")
        rows = built_candidates(e for path in split_files for e in read_jsonl(path, Example))
        streams.append(rows.candidates)
    if negatives_path is not None:
        streams.append(_rule_negatives(read_jsonl(negatives_path, RuleNegative), by_id))
    if trace_path is not None:
        kinds = {pair.pair_id: pair.kind.value for pair in pairs}
        streams.append(_evonli(read_jsonl(trace_path, PairTrace), kinds, target, near_miss_margin))
    if abstracts_path is not None:
        free = [pair for pair in pairs if pair.pmid not in reserved]
        abstracts = [a for a in read_jsonl(abstracts_path, Abstract) if a.pmid not in reserved]
        streams.append(_other_abstracts(free, abstracts, other_abstract_per_pair))
    pool, seen = Pool(), set()
    for stream in streams:
        for candidate in stream:
            if candidate.pmid in reserved or candidate.pmid2 in reserved:
                pool.reserved_skipped += 1
            elif candidate.candidate_id in judged:
                pool.already_judged += 1
            elif candidate.candidate_id in seen or candidate.sentence1.strip() == candidate.sentence2.strip():
                pool.duplicates += 1
            else:
                seen.add(candidate.candidate_id)
                pool.candidates.append(candidate)
    log.info(
        "judgements pool: %d candidates; left out %d of reserved abstracts, %d judged before, %d duplicates",
        len(pool.candidates),
        pool.reserved_skipped,
        pool.already_judged,
        pool.duplicates,
    )
    return pool
