"""Negation operators: insert or remove the negation of a sentence's predicate, and
flip statistical significance.

Following the rule-based negation of "Generating Prototypes for Contradiction
Detection Using Large Language Models and Linguistic Rules" (the verb phrase is
negated with "not", and the tense and person of the verb choose the form of "do"),
and BioNLI's Verb Negation (VNeg). The predicate is found without a parser:

- finite verbs are taken from main clauses and from the claim of a reporting verb
  ("These results suggest that X reduces Y" negates "reduces", not "suggest"), not
  from relative or subordinate clauses, whose negation changes a presupposition;
- be-forms, modals and auxiliary have/do take "not" directly ("is not", "may not",
  "has not been"); lexical verbs get do-support in their tense and person
  ("reduced" -> "did not reduce", "reduces" -> "does not reduce");
- removal undoes each of these, and "no significant difference" becomes
  "a significant difference".
"""

from __future__ import annotations

from dataclasses import dataclass

from scicon.records.base import TargetLabel
from scicon.rules.context import AbstractContext
from scicon.rules.edits import Edit, apply_edits
from scicon.rules.inflection import indefinite_article, inflect, match_case
from scicon.rules.negation_scope import negated_verb, negative_subject
from scicon.rules.operators import OPERATORS
from scicon.rules.tables import cues
from scicon.rules.tagging import ADVERB_TAGS, FINITE_TAGS, VERBAL_NEGATORS, Analysis, Token

_DO_FORM = {"VBD": "did", "VBZ": "does", "VBP": "do"}
_TENSE_OF_DO = {"did": "VBD", "does": "VBZ", "do": "VBP"}
_BE_FORMS = {"am", "is", "are", "was", "were"}
_HAVE_FORMS = {"has", "have", "had"}


@dataclass(frozen=True)
class Predicate:
    index: int
    in_claim: bool  # inside the "that" clause of a reporting verb


def predicates(analysis: Analysis) -> list[Predicate]:
    """Finite verbs of main clauses and of reported claims, in sentence order."""
    tokens = analysis.tokens
    subordinators, reporting = cues()["subordinator"], cues()["reporting_verb"]
    found: list[Predicate] = []
    state, subordinate_verb_seen = "main", False
    claim_reporters: set[int] = set()
    for t in tokens:
        if t.lower in (";", ":"):
            state = "main"
            continue
        if t.lower == "," and state == "subordinate":
            state = "main"
            continue
        if t.lower == "that" and t.tag == "IN":
            before = analysis.neighbour(t.i, -1, skip_adverbs=True)
            if before is not None and before.lemma in reporting:
                claim_reporters.add(before.i)
                state = "claim"
                continue
        if t.lower in subordinators or t.tag in ("WDT", "WP"):
            state, subordinate_verb_seen = "subordinate", False
            continue
        if t.tag not in FINITE_TAGS or t.pos not in ("AUX", "VERB"):
            continue
        before = analysis.neighbour(t.i, -1)
        if before is not None and before.tag == "IN" and before.lower != "that":
            continue  # "as follows", "than expected": not a clause's predicate
        chained = analysis.neighbour(t.i, -1, skip_adverbs=True)
        if chained is not None and (
            chained.lower == "to" or chained.lower in VERBAL_NEGATORS or chained.tag == "MD"
        ):
            continue  # "shown to have", "do not have", "may have": the chain's first verb is the predicate
        if chained is not None and chained.pos == "AUX" and chained.tag in FINITE_TAGS:
            continue
        if state == "subordinate":
            if not subordinate_verb_seen:
                subordinate_verb_seen = True
                continue
            # a second finite verb closes the relative clause: "Patients who received X had ..."
            state = "main"
        found.append(Predicate(t.i, in_claim=state == "claim"))
    # the report itself ("suggest") is not the claim when its "that" clause is there
    return [p for p in found if p.index not in claim_reporters]


def _next_core(analysis: Analysis, i: int) -> Token | None:
    return analysis.neighbour(i, 1, skip_adverbs=True)


def _do_support(analysis: Analysis, verb: Token, lemma: str | None = None) -> Edit:
    """ "X significantly reduced Y" -> "X did not significantly reduce Y" (sentence adverbs stay in front)."""
    first = verb.i
    sentence_adverbs = cues()["sentence_adverb"]
    while first > 0:
        before = analysis.tokens[first - 1]
        if (
            before.tag not in ADVERB_TAGS
            or before.lower in sentence_adverbs
            or before.lower in VERBAL_NEGATORS
        ):
            break
        first -= 1
    adverbs = [t.text for t in analysis.tokens[first : verb.i]]
    words = [_DO_FORM[verb.tag], "not", *adverbs, lemma or verb.lemma]
    return Edit(first, verb.i, " ".join(words))


def negate_predicate(analysis: Analysis, verb: Token) -> tuple[str, Edit] | None:
    """The rule name and edit that negate finite ``verb``; None if it is already negative."""
    if negated_verb(analysis, verb):
        return None
    lower = verb.lower
    nxt = _next_core(analysis, verb.i)
    if lower == "can":
        return "modal_cannot", Edit(verb.i, verb.i, match_case(verb.text, "cannot"))
    if verb.tag == "MD" or lower in _BE_FORMS:
        return ("copula_not" if lower in _BE_FORMS else "modal_not"), Edit(verb.i, verb.i, f"{verb.text} not")
    if lower in _HAVE_FORMS:
        if nxt is not None and (nxt.tag == "VBN" or nxt.lower == "been"):
            return "auxiliary_not", Edit(verb.i, verb.i, f"{verb.text} not")
        return "do_support", _do_support(analysis, verb, "have")
    if lower in _TENSE_OF_DO:
        if nxt is not None and nxt.tag == "VB":
            return "auxiliary_not", Edit(verb.i, verb.i, f"{verb.text} not")
        return None
    if verb.tag in _DO_FORM and verb.pos == "VERB":
        return "do_support", _do_support(analysis, verb)
    return None


@OPERATORS.register(
    "negation_insert", label=TargetLabel.CONTRADICTION, description="negate the main or claimed predicate"
)
def insert_negation(analysis: Analysis, context: AbstractContext | None) -> list[tuple[str, str]]:
    out = []
    for predicate in predicates(analysis):
        if negative_subject(analysis, predicate.index):
            continue
        made = negate_predicate(analysis, analysis.tokens[predicate.index])
        if made is not None:
            rule, edit = made
            out.append((rule, apply_edits(analysis, [edit])))
    return out + _article_to_no(analysis)


def _article_to_no(analysis: Analysis) -> list[tuple[str, str]]:
    """ "There was a significant difference" -> "There was no significant difference"."""
    out = []
    for t in analysis.tokens:
        if t.lower in ("a", "an") and t.i + 1 < len(analysis.tokens):
            nxt = analysis.tokens[t.i + 1]
            before = analysis.neighbour(t.i, -1)
            if (
                nxt.lower in ("significant", "statistically")
                and before is not None
                and before.pos in ("AUX", "VERB")
                and not negated_verb(analysis, before)
            ):
                out.append(("article_no", apply_edits(analysis, [Edit(t.i, t.i, match_case(t.text, "no"))])))
    return out


def _noun_phrase_head(analysis: Analysis, first: int) -> Token | None:
    """The last noun of the noun phrase starting at ``first`` ("significant difference" -> difference)."""
    head = None
    for t in analysis.tokens[first:]:
        if t.pos in ("NOUN", "PROPN"):
            head = t
        elif t.pos in ("ADJ", "ADV", "NUM") or t.tag in ("VBN", "VBG"):
            if head is not None:
                break
        else:
            break
    return head


def _drop_no(analysis: Analysis, no: Token) -> Edit | None:
    """ "no significant difference" -> "a significant difference"; "no differences" -> "differences"."""
    if no.i + 1 >= len(analysis.tokens):
        return None
    nxt = analysis.tokens[no.i + 1]
    if nxt.lower in ("longer", "more", "less", "one", "other"):
        return None
    head = _noun_phrase_head(analysis, no.i + 1)
    if head is None:
        return None
    mass = (
        head.lemma in cues()["mass_noun"] or head.lower in cues()["mass_noun"] or head.lower.endswith("ing")
    )
    if head.tag in ("NNS", "NNPS") or mass:
        return Edit(no.i, no.i, "")
    return Edit(no.i, no.i, match_case(no.text, indefinite_article(nxt.text)))


def _elided(tokens, aux: Token) -> bool:
    return aux.i > 1 and tokens[aux.i - 1].lower in ("and", "or") and tokens[aux.i - 2].lower in _TENSE_OF_DO


@OPERATORS.register(
    "negation_remove", label=TargetLabel.CONTRADICTION, description="remove a predicate's negation"
)
def remove_negation(analysis: Analysis, context: AbstractContext | None) -> list[tuple[str, str]]:
    out = []
    tokens = analysis.tokens
    for t in tokens:
        if t.lower in ("not", "n't") and t.i > 0:
            nxt = tokens[t.i + 1] if t.i + 1 < len(tokens) else None
            if nxt is not None and nxt.lower in ("only", "yet", "always"):
                continue
            aux = tokens[t.i - 1]
            if aux.end == t.start:  # "cannot", "doesn't", split by the tokenizer: keep "can", "does"
                edit = Edit(aux.i, t.i, aux.text)
                out.append(("attached_not", apply_edits(analysis, [edit])))
            elif aux.lower in _TENSE_OF_DO and _elided(tokens, aux):
                continue  # "patients who did and did not receive": the first "did" has lost its verb
            elif aux.lower in _TENSE_OF_DO:
                verb = _next_core(analysis, t.i)
                # "have" is listed as an auxiliary, so its base form carries VBP: "do not have"
                if verb is None or not (verb.tag == "VB" or verb.lower == "have"):
                    continue
                adverbs = [x.text for x in tokens[t.i + 1 : verb.i]]
                form = inflect(verb.lemma, _TENSE_OF_DO[aux.lower])
                out.append(
                    (
                        "undo_do_support",
                        apply_edits(analysis, [Edit(aux.i, verb.i, " ".join([*adverbs, form]))]),
                    )
                )
            elif aux.tag in FINITE_TAGS or aux.lower in ("be", "been"):
                out.append(("delete_not", apply_edits(analysis, [Edit(t.i, t.i, "")])))
        elif t.lower == "cannot":
            out.append(("cannot_can", apply_edits(analysis, [Edit(t.i, t.i, match_case(t.text, "can"))])))
        elif t.lower == "no" and t.tag == "DT":
            edit = _drop_no(analysis, t)
            if edit is not None:
                out.append(("no_to_article", apply_edits(analysis, [edit])))
        elif (
            t.lemma == "fail"
            and t.tag in _DO_FORM
            and t.i + 2 < len(tokens)
            and tokens[t.i + 1].lower == "to"
        ):
            verb = tokens[t.i + 2]
            if verb.pos == "VERB" or verb.tag == "VB":
                form = inflect(verb.lemma, t.tag)
                out.append(("failed_to", apply_edits(analysis, [Edit(t.i, verb.i, form)])))
    return out


def _takes_not(analysis: Analysis, aux: Token, adverb: Token) -> bool:
    """ "was significantly", "may significantly", "has significantly improved" take "not";
    "had significantly higher costs" (have as a main verb) does not."""
    if aux.lower in _BE_FORMS or aux.tag == "MD":
        return True
    following = _next_core(analysis, adverb.i)
    return aux.lower in _HAVE_FORMS and following is not None and following.tag == "VBN"


@OPERATORS.register(
    "significance_flip", label=TargetLabel.CONTRADICTION, description="significant <-> not significant"
)
def flip_significance(analysis: Analysis, context: AbstractContext | None) -> list[tuple[str, str]]:
    """ "significantly" <-> "not significantly", "a/no significant", "non-significant" -> "significant"."""
    out = []
    tokens = analysis.tokens
    for t in tokens:
        first = t.i - 1 if t.i > 0 and tokens[t.i - 1].lower == "statistically" else t.i
        before = tokens[first - 1] if first > 0 else None
        if t.lower == "significantly":
            nxt = tokens[t.i + 1] if t.i + 1 < len(tokens) else None
            if before is not None and before.lower == "not":
                aux = tokens[before.i - 1] if before.i > 0 else None
                verb = _next_core(analysis, t.i)
                if aux is not None and aux.lower in _TENSE_OF_DO and verb is not None and verb.tag == "VB":
                    words = (
                        analysis.span_text(first, verb.i - 1)
                        + " "
                        + inflect(verb.lemma, _TENSE_OF_DO[aux.lower])
                    )
                    out.append(
                        ("undo_not_significantly", apply_edits(analysis, [Edit(aux.i, verb.i, words)]))
                    )
                else:
                    out.append(
                        ("delete_not_significantly", apply_edits(analysis, [Edit(before.i, before.i, "")]))
                    )
            elif (
                before is not None and _takes_not(analysis, before, t) and not negated_verb(analysis, before)
            ):
                out.append(("not_significantly", apply_edits(analysis, [Edit(first, first - 1, "not")])))
            elif nxt is not None and nxt.tag in _DO_FORM and nxt.pos == "VERB":
                out.append(
                    ("not_significantly_do_support", apply_edits(analysis, [_do_support(analysis, nxt)]))
                )
        elif t.lower == "significant":
            if before is not None and before.lower in ("a", "an"):
                if any(x.lower in VERBAL_NEGATORS for x in tokens[max(0, before.i - 2) : before.i]):
                    continue  # "was not a significant predictor", "not to a significant degree"
                out.append(
                    (
                        "a_to_no_significant",
                        apply_edits(analysis, [Edit(before.i, before.i, match_case(before.text, "no"))]),
                    )
                )
            elif before is not None and before.lower == "no":
                edit = _drop_no(analysis, before)
                if edit is not None:
                    out.append(("no_to_a_significant", apply_edits(analysis, [edit])))
            elif before is not None and before.lower == "not":
                out.append(("delete_not_significant", apply_edits(analysis, [Edit(before.i, before.i, "")])))
            elif before is not None and before.lower in _BE_FORMS:
                # "There were significant differences" -> "There were no significant differences"
                existential = before.i > 0 and tokens[before.i - 1].lower == "there"
                word = "no" if existential else "not"
                out.append((f"{word}_significant", apply_edits(analysis, [Edit(first, first - 1, word)])))
            else:
                head = _noun_phrase_head(analysis, first)
                if (
                    head is not None
                    and head.tag == "NNS"
                    # not after "of": "the proportion of significant results" keeps its noun phrase
                    and (before is None or before.pos in ("VERB", "ADP", "AUX") and before.lower != "of")
                ):
                    out.append(("no_significant", apply_edits(analysis, [Edit(first, first - 1, "no")])))
        elif t.lower in ("non-significant", "nonsignificant", "insignificant"):
            out.append(
                (
                    "nonsignificant_to_significant",
                    apply_edits(analysis, [Edit(t.i, t.i, match_case(t.text, "significant"))]),
                )
            )
    return out
