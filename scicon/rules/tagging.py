"""Sentences as tokens with character offsets, part of speech and lemma.

Tokens come from scispaCy's biomedical tokenizer. Tags come from the installed spaCy
model when there is one; otherwise from a lexicon tagger: the closed-class table
(``tables/closed_class.tsv``) and lemminflect's dictionary give each word its
possible readings (:func:`readings`), and the named context rules of :func:`_pick`
choose one. The lexicon tagger is deliberately narrow — it has to find finite verbs,
nouns and modifiers well enough for the operators, not tag arbitrary text — and the
operators re-check the context they rely on.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from scicon.negation import negation_words
from scicon.rules import resources
from scicon.rules.tables import closed_class, cues

FINITE_TAGS = frozenset({"VBD", "VBZ", "VBP", "MD"})
ADVERB_TAGS = frozenset({"RB", "RBR", "RBS"})
NOMINAL_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "PRP", "CD"})
# "not", "never": tagged as adverbs, but part of the verb phrase they negate
VERBAL_NEGATORS = negation_words("verbal")
_TAGS_OF_POS = {
    "VERB": ("VB", "VBD", "VBG", "VBN", "VBP", "VBZ"),
    "NOUN": ("NN", "NNS"),
    "ADJ": ("JJ", "JJR", "JJS"),
    "ADV": ("RB", "RBR", "RBS"),
}
_NUMBER = re.compile(r"[<>≤≥=±~]?\d[\d.,]*%?")
# "increases in", "differences between": an -s form before these is a plural noun.
_NOUN_BEFORE = frozenset({"in", "of", "between", "from", "among"})
# "treated with", "compared to", "assessed by": an -ed form before these is a participle.
_PARTICIPLE_BEFORE = frozenset({"with", "by", "to"})
# Verbs whose finite form takes "to" + infinitive ("failed to improve"); any other -ed
# form before "to" is a participle ("nomograms used to predict").
_TAKES_INFINITIVE = frozenset(
    "fail seem appear tend continue begin start need want try manage choose decide attempt refuse".split()
)
# Suffixes of nouns that lemminflect sometimes lists only as verbs ("questionnaires").
_NOUN_SUFFIXES = ("aire", "tion", "ment", "ness", "ity", "ance", "ence", "ist", "ism", "ure")
# Suffixes of adjectives that lemminflect's dictionary does not know ("normotensive").
_ADJECTIVE_SUFFIXES = ("ive", "al", "ic", "ous", "ary", "ible", "able", "oid", "otic", "tory")


@dataclass(frozen=True)
class Token:
    i: int
    text: str
    start: int
    end: int
    tag: str
    pos: str
    lemma: str

    @property
    def lower(self) -> str:
        return self.text.lower()


@dataclass(frozen=True)
class Reading:
    tag: str
    pos: str
    lemma: str


@dataclass(frozen=True)
class Analysis:
    text: str
    tokens: tuple[Token, ...]
    tagger: str

    def neighbour(self, i: int, step: int, skip_adverbs: bool = False) -> Token | None:
        """The token ``step`` (±1) away from ``i``, optionally skipping adverbs (but not "not")."""
        j = i + step
        while 0 <= j < len(self.tokens):
            token = self.tokens[j]
            if not (skip_adverbs and token.tag in ADVERB_TAGS and token.lower not in VERBAL_NEGATORS):
                return token
            j += step
        return None

    def span_text(self, first: int, last: int) -> str:
        return self.text[self.tokens[first].start : self.tokens[last].end]


@functools.lru_cache(maxsize=20_000)
def analyse(text: str) -> Analysis:
    nlp = resources.sentence_pipeline()
    doc = nlp(text)
    if doc.has_annotation("TAG"):
        tokens = tuple(
            Token(t.i, t.text, t.idx, t.idx + len(t.text), t.tag_, t.pos_, _model_lemma(t))
            for t in doc
            if not t.is_space
        )
        return Analysis(text, tokens, f"model:{nlp.meta.get('name', 'spacy')}")
    words = [t for t in doc if not t.is_space]
    readings = lexicon_tags([t.text for t in words])
    tokens = tuple(
        Token(k, t.text, t.idx, t.idx + len(t.text), r.tag, r.pos, r.lemma)
        for k, (t, r) in enumerate(zip(words, readings, strict=True))
    )
    return Analysis(text, tokens, "lexicon")


def _model_lemma(token) -> str:
    """The model's lemma, or lemminflect's when the pipeline has no lemmatizer."""
    if token.lemma_:
        return token.lemma_.lower()
    if token.pos_ in _TAGS_OF_POS:
        return resources.lemminflect().getLemma(token.text, token.pos_)[0].lower()
    return token.text.lower()


@functools.lru_cache(maxsize=50_000)
def readings(word: str) -> tuple[Reading, ...]:
    """Every (tag, POS, lemma) the word can have, from the closed-class table or lemminflect."""
    lower = word.lower()
    if not any(c.isalnum() for c in word):
        return (Reading(word if word in ",.:;()" else "SYM", "PUNCT", word),)
    if _NUMBER.fullmatch(word):
        return (Reading("CD", "NUM", lower),)
    if lower in closed_class():
        return tuple(Reading(e.tag, e.pos, _closed_lemma(lower, e.pos)) for e in closed_class()[lower])
    li = resources.lemminflect()
    found: list[Reading] = []
    for pos, lemmas in li.getAllLemmas(lower).items():
        for lemma in lemmas if pos in _TAGS_OF_POS else ():
            lemma = lemma.lower()
            for tag in _TAGS_OF_POS[pos]:
                if lower in (form.lower() for form in li.getInflection(lemma, tag)):
                    found.append(Reading(tag, pos, lemma))
    if found and lower.endswith("s") and all(r.tag == "VBZ" for r in found):
        # lemminflect knows some nouns only as verbs ("questionnaires")
        stem = lower[:-1]
        if "NOUN" in li.getAllLemmas(stem) or stem.endswith(_NOUN_SUFFIXES):
            found.append(Reading("NNS", "NOUN", stem))
    if found:
        # lemminflect lists uncountable nouns as their own plural ("treatment", "fatigue")
        # and "loss" or "series" as plurals of themselves: keep the singular reading
        singular = {r.lemma for r in found if r.tag == "NN"}
        if not lower.endswith("s") or lower in singular:
            found = [r for r in found if not (r.tag == "NNS" and r.lemma in singular)] or found
        return tuple(dict.fromkeys(found))
    # Out of the dictionary: drug and gene names, abbreviations, compounds.
    if any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:]) or word[0].isupper():
        return (Reading("NNP", "PROPN", word),)
    if lower.endswith("ly"):
        return (Reading("RB", "ADV", lower),)
    if lower.endswith(_ADJECTIVE_SUFFIXES):
        return (Reading("JJ", "ADJ", lower),)
    if lower.endswith("s") and not lower.endswith(("ss", "us", "is")):
        return (Reading("NNS", "NOUN", lower[:-1]),)
    return (Reading("NN", "NOUN", lower),)


_BE = {"am", "is", "are", "was", "were", "be", "been", "being"}
_HAVE = {"has", "have", "had", "having"}
_DO = {"does", "do", "did"}


def _closed_lemma(lower: str, pos: str) -> str:
    if pos == "AUX":
        if lower in _BE:
            return "be"
        if lower in _HAVE:
            return "have"
        if lower in _DO:
            return "do"
    return lower


def lexicon_tags(words: Sequence[str]) -> list[Reading]:
    """One reading per word, chosen by the context rules of :func:`_pick`."""
    options = [readings(word) for word in words]
    chosen: list[Reading] = []
    for i in range(len(words)):
        chosen.append(_pick(i, words, options, chosen))
    _reduced_relatives(words, options, chosen)
    return chosen


def _first(options: Sequence[Reading], *tags: str) -> Reading | None:
    for tag in tags:
        for reading in options:
            if reading.tag == tag:
                return reading
    return None


def _previous_core(chosen: Sequence[Reading], words: Sequence[str]) -> tuple[Reading | None, int]:
    for j in range(len(chosen) - 1, -1, -1):
        if chosen[j].tag in ADVERB_TAGS and words[j].lower() not in VERBAL_NEGATORS:
            continue
        return chosen[j], j
    return None, -1


def _previous_verbal(chosen: Sequence[Reading], words: Sequence[str]) -> Reading | None:
    """The previous reading that is not an adverb or a negator ("did not significantly reduce")."""
    for j in range(len(chosen) - 1, -1, -1):
        if chosen[j].tag not in ADVERB_TAGS:
            return chosen[j]
    return None


def _pick(i: int, words: Sequence[str], options: Sequence[Sequence[Reading]], chosen: Sequence[Reading]):
    opts = options[i]
    lower = words[i].lower()
    prev, prev_index = _previous_core(chosen, words)
    prev_word = words[i - 1].lower() if i > 0 else ""
    nxt = options[i + 1] if i + 1 < len(words) else ()
    next_word = words[i + 1].lower() if i + 1 < len(words) else ""
    next_nominal = any(r.pos in ("NOUN", "PROPN", "ADJ", "NUM") for r in nxt) and not any(
        r.pos in ("ADP", "AUX", "PUNCT") for r in nxt
    )
    if lower == "that":
        # complementizer after reporting verbs ("suggest that"), relative after nouns
        if prev is not None and prev.lemma in cues()["reporting_verb"]:
            return _first(opts, "IN")
        if prev is not None and prev.pos in ("NOUN", "PROPN"):
            return _first(opts, "WDT")
        return (
            _first(opts, "DT")
            if next_nominal and not any(r.pos == "VERB" for r in nxt)
            else _first(opts, "IN")
        )
    if len(opts) == 1:
        return opts[0]
    # rule infinitive: "to reduce", unless "to" is a preposition ("compared to", "similar to")
    if prev_word == "to" and (i < 2 or words[i - 2].lower() not in cues()["to_preposition_head"]):
        found = _first(opts, "VB")
        if found:
            return found
    # rule after_modal_or_do: "may reduce", "did not reduce"
    verbal = _previous_verbal(chosen, words)
    if verbal is not None and (verbal.tag == "MD" or (verbal.pos == "AUX" and verbal.lemma == "do")):
        found = _first(opts, "VB")
        if found:
            return found
    # rule after_be: "was reduced", "is increasing", "were higher"
    if prev is not None and prev.pos == "AUX" and prev.lemma == "be":
        found = _first(opts, "VBN", "VBG", "JJ", "JJR", "JJS")
        if found:
            return found
    # rule after_have: "has improved"
    if prev is not None and prev.pos == "AUX" and prev.lemma == "have":
        found = _first(opts, "VBN")
        if found:
            return found
    # rule nominal_context: after a determiner, possessive, adjective, number or preposition
    # a verb form is a modifier ("the reduced dose") or a noun ("the increase")
    if prev is not None and (
        prev.tag in ("DT", "PRP$", "JJ", "JJR", "JJS", "CD", "IN", "VBN") or prev.pos == "ADP"
    ):
        if next_nominal:
            found = _first(opts, "JJ", "JJR", "JJS", "VBN", "VBG", "NN")
        else:
            found = _first(opts, "NN", "NNS", "JJ", "JJR", "JJS", "VBG")
        if found:
            return found
    # rule plural_before_preposition: "increases in", "differences between"
    if next_word in _NOUN_BEFORE and lower.endswith("s"):
        found = _first(opts, "NNS")
        if found:
            return found
    # rule noun_before_predicate: "Remission rates were", "pain scores." — a verb is not
    # followed by an auxiliary or by the end of its clause
    if any(r.tag in ("NNS", "NN") for r in opts) and nxt and all(r.pos in ("AUX", "PUNCT") for r in nxt):
        found = _first(opts, "NNS", "NN")
        if found:
            return found
    # rule participle_before_agent: "treated with", "compared to", "assessed by" (not "failed to improve")
    after_next = options[i + 2] if i + 2 < len(words) else ()
    takes_infinitive = any(r.lemma in _TAKES_INFINITIVE for r in opts)
    infinitive = next_word == "to" and takes_infinitive and any(r.tag == "VB" for r in after_next)
    if next_word in _PARTICIPLE_BEFORE and not infinitive:
        found = _first(opts, "VBN") if _first(opts, "VBD") else None
        if found:
            return found
    # rule coordinated_verb: "improved X and increased Y" shares the first verb's tense
    if prev is not None and prev.tag == "CC":
        earlier = [r for r in chosen[:prev_index] if r.tag in ("VBD", "VBZ", "VBP") and r.pos == "VERB"]
        found = _first(opts, earlier[-1].tag) if earlier else None
        if found:
            return found
    # rule finite_after_subject: a verb form right after a noun phrase or pronoun is the predicate
    if prev is not None and (prev.pos in ("NOUN", "PROPN", "PRON", "NUM") or words[prev_index] == ")"):
        plural_subject = prev.tag in ("NNS", "NNPS") or words[prev_index].lower() in ("we", "they")
        found = _first(opts, "VBD", "VBZ", *(("VBP",) if plural_subject else ()))
        if found:
            return found
    # default: nouns and modifiers are far more frequent than verbs in abstracts
    if next_nominal:
        found = _first(opts, "JJ", "JJR", "JJS")
        if found:
            return found
    return (
        _first(opts, "NN", "NNS", "JJ", "JJR", "JJS", "RB", "RBR", "VBG", "VBN", "VBD", "VBZ", "VB")
        or opts[0]
    )


_CLAUSE_BREAKS = frozenset({";", ":", ",", "that", "and", "or", "but"})


def _reduced_relatives(words: Sequence[str], options: Sequence[Sequence[Reading]], chosen: list[Reading]):
    """One predicate per clause. An ambiguous form read as a finite verb is a participle
    or a noun when its clause has another finite verb that is not ambiguous:
    "Patients treated with X had ..." (treated: participle), "leisure time sports
    participation is ..." and "preparations performed better in cytology challenges"
    (sports, challenges: nouns)."""
    subordinators = cues()["subordinator"]
    for i, reading in enumerate(chosen):
        if reading.tag not in ("VBD", "VBZ", "VBP") or reading.pos != "VERB" or i == 0:
            continue
        if words[i - 1].lower() in subordinators:
            continue
        alternative = _first(options[i], "VBN", "NNS", "NN")
        if alternative is None:
            continue
        if _other_finite(words, options, chosen, i, +1) or _other_finite(words, options, chosen, i, -1):
            chosen[i] = alternative


def _other_finite(words, options, chosen, i: int, step: int) -> bool:
    subordinators = cues()["subordinator"]
    j = i + step
    while 0 <= j < len(words):
        lower = words[j].lower()
        if lower in _CLAUSE_BREAKS or lower in subordinators or chosen[j].tag in ("WDT", "WP"):
            return False
        # the clause's first predicate wins; a later one must be unambiguous to win
        unambiguous = step < 0 or all(r.tag in FINITE_TAGS or r.pos == "AUX" for r in options[j])
        if chosen[j].tag in FINITE_TAGS and unambiguous:
            return True
        j += step
    return False
