"""Word deletion, chosen by name with nothing in params.yaml."""

from __future__ import annotations

import re

from scicon.params import Thresholds
from scicon.transformations.base import MutationRequest
from scicon.transformations.word_deletion import WordDeletion
from tests.evolve_helpers import assemble, evolve_params
from tests.scripted_backend import ScriptedBackend

SENTENCE = "Velanoxet reduced major bleeding compared with warfarin."


def test_word_deletion_removes_one_content_word_deterministically():
    request = MutationRequest(sentence1="x", sentence2=SENTENCE, seed=3, count=4)
    proposals = WordDeletion().propose([request])[0]
    assert proposals == WordDeletion().propose([request])[0]
    for text in proposals:
        words = re.findall(r"\w+", text or "")
        assert len(words) == len(re.findall(r"\w+", SENTENCE)) - 1 and text.endswith(".")
        assert "with" in words and "  " not in text and " ." not in text  # stop words stay
    assert WordDeletion().propose([MutationRequest(sentence1="x", sentence2="It was so.")]) == [[None]]


def test_word_deletion_is_assembled_from_its_name_alone():
    params = evolve_params(transformation="word_deletion", search="evolutionary", similarity="llm",
                           claim="llm", goal="llm")  # fmt: skip
    assert "word_deletion" not in params.settings["transformation"]
    searches, _ = assemble(params, Thresholds(sim=0.5, claim=0.9, target=0.4), ScriptedBackend())
    assert {type(search.transformation).__name__ for search in searches.values()} == {"WordDeletion"}
