"""Word forms for edited sentences: re-inflection, capitalisation and "a"/"an".

An operator that swaps a word ("increased" -> "decreased", "higher" -> "lower") puts
the replacement in the original's form with lemminflect; a sentence-initial word
keeps its capital; an indefinite article agrees with the new word after it.
"""

from __future__ import annotations

from scicon.rules import resources


def inflect(lemma: str, tag: str) -> str:
    """``lemma`` in the form ``tag`` (Penn Treebank); multiword lemmas inflect their head."""
    li = resources.lemminflect()
    parts = lemma.split()
    head = 0 if tag.startswith("VB") else len(parts) - 1
    word = parts[head]
    if tag in ("JJR", "JJS", "RBR", "RBS"):
        forms = li.getInflection(word, tag, inflect_oov=False)
        # lemminflect makes "effectiver" for long adjectives: keep only forms it knows as words
        if forms and li.getAllLemmas(forms[0]) and len(parts) == 1:
            return forms[0]
        return ("more " if tag in ("JJR", "RBR") else "most ") + lemma
    forms = li.getInflection(word, tag) if tag not in ("JJ", "RB", "NN", "NNP") else (word,)
    parts[head] = forms[0] if forms else word
    return " ".join(parts)


def match_case(template: str, word: str) -> str:
    """``word`` capitalised like ``template`` (first letter only; all-caps templates are acronyms)."""
    if template[:1].isupper() and not word[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def indefinite_article(word: str) -> str:
    lower = word.lower()
    # "an unsafe", "a useful", "an hour", "a one-year": by sound, approximated by spelling
    if lower.startswith(("hour", "honest", "heir")):
        return "an"
    sounds_like_you = lower.startswith(("uni", "use", "usu", "eu", "one", "once", "ur"))
    if sounds_like_you and not lower.startswith(("unim", "unin")):  # but "an unimportant"
        return "a"
    return "an" if lower[:1] in "aeiou" else "a"
