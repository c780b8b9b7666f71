"""Word deletion, chosen by name with its settings block in params.yaml."""

from __future__ import annotations

import re

from scicon.params import Thresholds
from scicon.transformations.base import MutationRequest
from scicon.transformations.word_deletion import WordDeletion
from tests.evolve_helpers import assemble, evolve_params
from tests.scripted_backend import ScriptedBackend

SENTENCE = "Velanoxet reduced major bleeding compared with warfarin."


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


def test_word_deletion_removes_content_words_deterministically():
    request = MutationRequest(sentence1="x", sentence2=SENTENCE, seed=3, count=4)
    for max_words in (1, 2):
        proposals = WordDeletion(max_words).propose([request])[0]
        assert proposals == WordDeletion(max_words).propose([request])[0]
        for text in proposals:
            assert len(words(text or "")) == len(words(SENTENCE)) - max_words and text.endswith(".")
            assert "with" in words(text) and "  " not in text and " ." not in text  # stop words stay
    assert WordDeletion().propose([MutationRequest(sentence1="x", sentence2="It was so.")]) == [[None]]


def test_word_deletion_is_assembled_from_its_name_and_its_params_block():
    parts = dict(search="evolutionary", similarity="llm", claim="llm", goal="llm")
    params = evolve_params(transformation="word_deletion", **parts)
    assert params.settings["transformation"]["word_deletion"] == {"max_words": 1}  # params.yaml
    searches, _ = assemble(params, Thresholds(sim=0.5, claim=0.9, target=0.4), ScriptedBackend())
    assert {search.transformation.max_words for search in searches.values()} == {1}
