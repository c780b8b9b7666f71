"""Linguistic resources of the rule operators, loaded lazily, once per process.

- **WordNet 3.0** through NLTK's WordNet reader, English only. ``scripts/setup.sh`` builds it
  offline from Debian's packages (:mod:`scicon.rules.wordnet_db`); ``nltk.download``
  is the route for users with internet. Nothing here ever downloads.
- **lemminflect** for lemmas and re-inflection (its dictionary also stands in for a
  part-of-speech lexicon when no tagger is installed).
- **spaCy**: a scispaCy model when one is importable (``en_core_sci_sm`` brings a
  tagger, parser and entity recogniser; ``en_ner_bc5cdr_md`` chemical and disease
  entities). Without one — the case offline, since the models are downloads from a
  host we cannot reach — a blank English pipeline with scispaCy's biomedical
  tokenizer, its abbreviation detector and the pysbd sentencizer.

Loading WordNet takes seconds and spaCy a second, so operators call these functions
only when they need them and the results are cached for the process.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import logging
import threading
import warnings
from collections.abc import Iterator
from typing import Any

from scicon.errors import InputNotFoundError

log = logging.getLogger(__name__)

# Tried in this order; the first importable one tags and parses the sentences.
TAGGER_MODELS = ("en_core_sci_sm", "en_core_sci_md", "en_core_sci_lg")
# Tried in this order for entity mentions (chemicals and diseases first: intervention names).
ENTITY_MODELS = ("en_ner_bc5cdr_md", "en_core_sci_sm", "en_core_sci_md", "en_core_sci_lg")

WORDNET_MISSING = (
    "WordNet 3.0 is not installed where NLTK looks for it ({paths}). Run scripts/setup.sh "
    "(installs Debian's wordnet-base and wordnet-sense-index and builds .venv/nltk_data), "
    "or with internet: python -c \"import nltk; nltk.download('wordnet')\""
)


# NLTK's WordNet reader loads lazily and reads synsets through shared file handles
# (seek, then read), so two threads looking words up at once read each other's
# offsets ("No WordNet synset found for pos=v at offset=..."). Searches run in threads
# (evolve.workers), so every lookup holds this lock.
_WORDNET_LOCK = threading.RLock()


@contextlib.contextmanager
def wordnet_lookup() -> Iterator[Any]:
    """The loaded WordNet reader, held exclusively for the ``with`` block."""
    with _WORDNET_LOCK:
        yield wordnet()


@functools.cache
def wordnet() -> Any:
    """NLTK's WordNet reader for the English WordNet that ``nltk.corpus.wordnet`` finds; a
    clear error if the database is missing.

    Not safe to share between threads: look words up inside :func:`wordnet_lookup`.
    """
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class EnglishWordNet(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> None:
            # The map between WordNet versions serves only the Open Multilingual Wordnet's
            # languages, which no operator reads; NLTK builds it on loading, reading
            # index.sense twice: more than half of the load time.
            return None

    try:
        root = nltk.data.find("corpora/wordnet")
    except LookupError:
        raise InputNotFoundError(WORDNET_MISSING.format(paths=", ".join(nltk.data.path))) from None
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The multilingual functions", category=UserWarning)
        reader = EnglishWordNet(root, omw_reader=None)
    log.info("WordNet %s loaded from %s", reader.get_version(), reader.root)
    return reader


@functools.cache
def lemminflect() -> Any:
    import lemminflect as module

    return module


def installed_model(candidates: tuple[str, ...]) -> str | None:
    """The first spaCy model package among ``candidates`` that is importable, or None."""
    for name in candidates:
        if importlib.util.find_spec(name) is not None:
            return name
    return None


@functools.cache
def sentence_pipeline() -> Any:
    """spaCy pipeline for single sentences: a scispaCy model if installed, else tokenizer only."""
    import spacy

    name = installed_model(TAGGER_MODELS)
    if name is not None:
        log.info("tagging with the installed spaCy model %s", name)
        return spacy.load(name, exclude=["ner"])
    return _blank_scispacy(spacy)


@functools.cache
def abstract_pipeline() -> Any:
    """spaCy pipeline for whole abstracts: sentences, abbreviations and (with a model) entities."""
    import spacy

    name = installed_model(ENTITY_MODELS)
    nlp = spacy.load(name) if name is not None else _blank_scispacy(spacy)
    if name is not None:
        log.info("entity mentions from the installed spaCy model %s", name)
    if not nlp.has_pipe("parser") and not nlp.has_pipe("senter"):
        import scispacy.custom_sentence_segmenter  # noqa: F401  (registers pysbd_sentencizer)

        nlp.add_pipe("pysbd_sentencizer", first=True)
    import scispacy.abbreviation  # noqa: F401  (registers abbreviation_detector)

    nlp.add_pipe("abbreviation_detector")
    # The detector's global matcher is empty until it has seen an abbreviation; spaCy
    # warns about that on every abstract without one.
    warnings.filterwarnings("ignore", message=r"\[W036\]", category=UserWarning)
    return nlp


def _blank_scispacy(spacy: Any) -> Any:
    # scispaCy's tokenizer regexes trip a FutureWarning in spaCy's compiler; harmless
    warnings.filterwarnings("ignore", message="Possible set union", category=FutureWarning)
    from scispacy.custom_tokenizer import combined_rule_tokenizer

    nlp = spacy.blank("en")
    nlp.tokenizer = combined_rule_tokenizer(nlp)
    return nlp
