"""Word-level swaps: WordNet antonyms, the biomedical polarity lexicon, and the
label-preserving synonym controls.

WordNet antonymy follows the antonym rule of "Generating Prototypes for
Contradiction Detection Using Large Language Models and Linguistic Rules": content
words are replaced by a WordNet antonym. That paper shows the failure we guard
against ("A young girl" -> "A oldgirl", wrong senses), so here:

- only *direct* antonyms of the word's own lemma are used (no satellite or
  similar-to hops), from its most frequent senses only (``MAX_SENSE_RANK``);
- words whose swap is absurd or not a contradiction in trial abstracts are blocked,
  and a few senses corrected, in ``tables/wordnet_overrides.tsv`` (each with a reason);
- the antonym is re-inflected to the original form with lemminflect ("higher" ->
  "lower", "increased" -> "decreased"), articles agree ("a" -> "an"), and words
  inside entity names ("usual care") are left alone.

The "modified EDA" baseline uses :func:`eda_antonym`, which like EDA's synonym
replacement takes antonyms from every sense — the surface-level baseline of the
EvoNLI paper's Table 2, kept deliberately naive.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict

from scicon.records.base import TargetLabel
from scicon.rules import resources
from scicon.rules.context import AbstractContext
from scicon.rules.edits import Edit, apply_edits
from scicon.rules.inflection import inflect, match_case
from scicon.rules.negation_scope import negated_clause
from scicon.rules.operators import OPERATORS
from scicon.rules.tables import LexicalPair, closed_class, polarity_pairs, synonym_pairs, wordnet_overrides
from scicon.rules.tagging import Analysis, Token, readings

# Senses of a word considered for antonyms, in WordNet's frequency order; verbs are
# the most polysemous, so only their first sense counts.
MAX_SENSE_RANK = {"ADJ": 2, "ADV": 2, "NOUN": 2, "VERB": 1}
_WORDNET_POS = {"ADJ": "a", "ADV": "r", "VERB": "v", "NOUN": "n"}
_TAGS = {
    "VERB": ("VB", "VBD", "VBG", "VBN", "VBP", "VBZ"),
    "NOUN": ("NN", "NNS"),
    "ADJ": ("JJ", "JJR", "JJS"),
    "ADV": ("RB", "RBR", "RBS"),
}


def _protected(analysis: Analysis, context: AbstractContext | None) -> set[int]:
    """Token indices inside entity names of the abstract (not to be edited word by word)."""
    if context is None:
        return set()
    spans = []
    for name in context.entities:
        spans += [
            m.span() for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", analysis.text, re.IGNORECASE)
        ]
    return {t.i for t in analysis.tokens if any(s <= t.start < e for s, e in spans)}


def _contrasted(analysis: Analysis, i: int, replacement: str) -> bool:
    """The opposite is already beside the word ("early" versus "late", "higher or lower"):
    swapping would only repeat it."""
    window = analysis.tokens[max(0, i - 4) : i + 5]
    return any(t.lower == replacement.lower() for t in window if t.i != i)


def _editable(token: Token) -> bool:
    # closed-class quantity words (more, fewer, most) belong to quantifier_flip
    return (
        token.pos in _TAGS
        and token.tag not in ("NNP", "NNPS")
        and len(token.text) > 2
        and token.lower not in closed_class()
    )


def _compatible(reading_pos: str, reading_tag: str, token: Token) -> bool:
    """A table row for another part of speech still fits participles used as adjectives
    ("increased risk": ADJ token, VERB row)."""
    if reading_pos == token.pos:
        return True
    participle = reading_tag in ("VBN", "VBG") or token.tag in ("VBN", "VBG")
    return participle and {reading_pos, token.pos} == {"ADJ", "VERB"}


# --------------------------------------------------------------------------- lexicon swaps


@functools.cache
def _index(pairs: tuple[LexicalPair, ...]) -> dict[tuple[str, str], list[LexicalPair]]:
    index: dict[tuple[str, str], list[LexicalPair]] = defaultdict(list)
    for pair in pairs:
        index[(pair.word, pair.pos)].append(pair)
    return dict(index)


def _lexicon_swaps(
    analysis: Analysis, context: AbstractContext | None, pairs: tuple[LexicalPair, ...], negating: bool = True
):
    index = _index(pairs)
    protected = _protected(analysis, context)
    out = []
    for t in analysis.tokens:
        if t.i in protected or not _editable(t) or (negating and negated_clause(analysis, t.i)):
            continue
        # every reading of the word that the table knows, e.g. "lower": ADJ low/JJR and VERB lower/VBP
        options = [(r, pair) for r in readings(t.text) for pair in index.get((r.lemma, r.pos), ())]
        own = [(r, pair) for r, pair in options if r.pos == t.pos] or [
            (r, pair) for r, pair in options if _compatible(r.pos, r.tag, t)
        ][:1]
        for reading, pair in own:
            tag = t.tag if t.pos == reading.pos else reading.tag
            new = match_case(t.text, inflect(pair.replacement, tag))
            if _contrasted(analysis, t.i, new):
                continue
            out.append((pair.name, apply_edits(analysis, [Edit(t.i, t.i, new)])))
    for pair in pairs:
        if pair.pos == "PHRASE":
            for match in re.finditer(
                rf"(?<![\w-]){re.escape(pair.word)}(?![\w-])", analysis.text, re.IGNORECASE
            ):
                new = match_case(match.group(0), pair.replacement)
                out.append((pair.name, analysis.text[: match.start()] + new + analysis.text[match.end() :]))
    return out


@OPERATORS.register(
    "polarity_lexicon", label=TargetLabel.CONTRADICTION, description="biomedical polarity lexicon"
)
def polarity_reversal(analysis: Analysis, context: AbstractContext | None) -> list[tuple[str, str]]:
    return _lexicon_swaps(analysis, context, polarity_pairs())


# --------------------------------------------------------------------------- WordNet


# Noun antonyms outside these lexicographer files swap things, feelings and people
# ("pain" -> "pleasure", "adult" -> "juvenile"), which is absurd rather than contradictory.
NOUN_LEXFILES = frozenset(
    {"noun.attribute", "noun.state", "noun.process", "noun.quantity", "noun.phenomenon", "noun.event"}
)
# Derived negatives of nouns that name no real state ("mortality" -> "immortality",
# "intervention" -> "nonintervention"); "disadvantage" and "inefficacy" stay.
_NEGATIVE_PREFIX = re.compile(r"^(?:im|non|de)-?")


def _lemma_antonyms(lemma, name: str) -> list[str]:
    if lemma.name().lower() != name:
        return []
    found = []
    for antonym in lemma.antonyms():
        text = antonym.name().replace("_", " ")
        if lemma.synset().pos() == "n" and (
            lemma.synset().lexname() not in NOUN_LEXFILES
            or _NEGATIVE_PREFIX.sub("", text) == name
            or _NEGATIVE_PREFIX.sub("", name) == text
        ):
            continue
        found.append(text)
    return found


def wordnet_antonyms(word: str, pos: str, any_sense: bool = False) -> list[str]:
    """Direct antonyms of ``word`` (a lemma) as ``pos``: from its most frequent senses, or all."""
    override = wordnet_overrides().get((word, pos))
    if override is not None:
        return [] if override.action == "block" else [override.antonym]
    found: list[str] = []
    with resources.wordnet_lookup() as wn:
        for rank, synset in enumerate(wn.synsets(word, pos=_WORDNET_POS[pos])):
            if not any_sense and rank >= MAX_SENSE_RANK[pos]:
                break
            for lemma in synset.lemmas():
                found += _lemma_antonyms(lemma, word)
            if found and not any_sense:
                break
    return list(dict.fromkeys(found))


def _antonym_swaps(analysis: Analysis, context: AbstractContext | None, any_sense: bool):
    protected = _protected(analysis, context)
    out = []
    for t in analysis.tokens:
        if t.i in protected or not _editable(t) or not t.text.replace("-", "").isalpha():
            continue
        if not any_sense and negated_clause(analysis, t.i):
            continue  # the EDA baseline stays naive
        following = analysis.neighbour(t.i, 1)
        if t.pos == "VERB" and following is not None and following.lower == "to":
            continue  # "continue to increase" -> "discontinue to increase"
        for antonym in wordnet_antonyms(t.lemma, t.pos, any_sense):
            new = match_case(t.text, inflect(antonym, t.tag))
            if not any_sense and _contrasted(analysis, t.i, new):
                continue
            out.append((f"{t.pos.lower()}_antonym", apply_edits(analysis, [Edit(t.i, t.i, new)])))
    return out


@OPERATORS.register(
    "wordnet_antonym", label=TargetLabel.CONTRADICTION, description="WordNet antonym, frequent senses"
)
def wordnet_antonym(analysis: Analysis, context: AbstractContext | None) -> list[tuple[str, str]]:
    return _antonym_swaps(analysis, context, any_sense=False)


@OPERATORS.register(
    "eda_antonym",
    label=TargetLabel.CONTRADICTION,
    description="EDA-style antonym from any sense",
    default=False,
)
def eda_antonym(analysis: Analysis, context: AbstractContext | None) -> list[tuple[str, str]]:
    return _antonym_swaps(analysis, context, any_sense=True)


# --------------------------------------------------------------------------- controls


def _wordnet_synonym(word: str, pos: str) -> str | None:
    """A synonym that is safe out of context: the word's first sense is also the
    synonym's first sense, and the synonym is a frequent single word."""
    if wordnet_overrides().get((word, pos)) is not None:
        return None
    with resources.wordnet_lookup() as wn:
        synsets = wn.synsets(word, pos=_WORDNET_POS[pos])
        if not synsets:
            return None
        first = synsets[0]
        for lemma in first.lemmas():
            name = lemma.name().lower()
            if name == word or "_" in name or lemma.count() < 3:
                continue
            own = wn.synsets(name, pos=_WORDNET_POS[pos])
            if own and own[0] == first:
                return name
    return None


@OPERATORS.register(
    "synonym_control", label=TargetLabel.NON_CONTRADICTION, description="label-preserving synonym swap"
)
def synonym_control(analysis: Analysis, context: AbstractContext | None) -> list[tuple[str, str]]:
    out = _lexicon_swaps(analysis, context, synonym_pairs(), negating=False)
    curated = {t.lower for t in analysis.tokens if any(p.word == t.lemma for p in synonym_pairs())}
    protected = _protected(analysis, context)
    for t in analysis.tokens:
        # WordNet's first sense of nouns and verbs is too often the wrong one here
        # ("falls" -> "autumns", "patients recover" -> "patients retrieve"); verbs and
        # nouns come from the curated table only
        if t.i in protected or not _editable(t) or t.lower in curated or t.pos in ("NOUN", "VERB"):
            continue
        if any(r.pos == "VERB" for r in readings(t.text)) or t.tag in ("JJR", "JJS", "RBR", "RBS"):
            continue  # participles ("given" -> "granted") and comparatives ("smaller" -> "littler")
        synonym = _wordnet_synonym(t.lemma, t.pos)
        if synonym is not None:
            new = match_case(t.text, inflect(synonym, t.tag))
            out.append(("wordnet_synonym", apply_edits(analysis, [Edit(t.i, t.i, new)])))
    return out
