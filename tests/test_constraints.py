"""The cheap constraints on real models and data: MiniLM topic similarity, role-based claims."""

from __future__ import annotations

import pytest

from scicon.backbones.cache import CallCache
from scicon.constraints.base import ConstraintCheck
from scicon.constraints.claim import RoleClaim
from scicon.constraints.similarity import EmbeddingSimilarity
from scicon.corpus.readers import read_corpus
from scicon.records.corpus import Abstract

MINILM = "embedded:all-minilm-l6-v2"

CONCLUSION = "Velanoxet reduced major bleeding compared with warfarin in adults with atrial fibrillation."
RESULT = "Major bleeding occurred in 4% of the velanoxet group and 9% of the warfarin group (P = 0.02)."


@pytest.fixture(scope="module")
def similarity():
    return EmbeddingSimilarity("embedded:all-minilm-l6-v2", threshold=0.5, reference="sentence1")


def test_embedding_similarity_measures_topic_not_agreement(similarity):
    contradiction, off_topic = similarity.scores(
        [
            ConstraintCheck("Velanoxet increased major bleeding compared with warfarin.", RESULT, CONCLUSION),
            ConstraintCheck("Honey syrup relieved night-time cough in young children.", RESULT, CONCLUSION),
        ]
    )
    assert contradiction > 0.75  # a flipped claim stays on the topic
    assert off_topic < contradiction - 0.2
    assert 0.0 <= off_topic <= 1.0


def test_embedding_similarity_can_compare_with_the_original_sentence(similarity):
    reference = EmbeddingSimilarity("embedded:all-minilm-l6-v2", threshold=0.5, reference="original")
    check = ConstraintCheck("Velanoxet increased major bleeding compared with warfarin.", RESULT, CONCLUSION)
    assert reference.scores([check])[0] > similarity.scores([check])[0]


def test_embedding_similarity_encodes_each_sentence_once_and_caches_scores(tmp_path):
    cache = CallCache(tmp_path / "calls.sqlite")
    first = EmbeddingSimilarity(
        "embedded:all-minilm-l6-v2", threshold=0.5, reference="sentence1", cache=cache
    )
    encoded = []
    encode = first.encoder.encode
    first.encoder.encode = lambda texts, **options: encoded.append(list(texts)) or encode(texts, **options)
    checks = [
        ConstraintCheck("Velanoxet increased major bleeding compared with warfarin.", RESULT, CONCLUSION),
        ConstraintCheck("Honey syrup relieved night-time cough in young children.", RESULT, CONCLUSION),
        ConstraintCheck("Velanoxet increased major bleeding compared with warfarin.", RESULT, CONCLUSION),
    ]
    scores = first.scores(checks)
    assert scores[0] == scores[2] and len(encoded) == 1 and len(encoded[0]) == 3  # RESULT once

    # a later run (a threshold experiment) on the same cache encodes nothing it scored before
    again = EmbeddingSimilarity(
        "embedded:all-minilm-l6-v2", threshold=0.7, reference="sentence1", cache=cache
    )
    again.encoder.encode = lambda texts, **options: pytest.fail(f"encoded again: {texts}")
    assert again.scores(checks) == scores
    uncached = EmbeddingSimilarity("embedded:all-minilm-l6-v2", threshold=0.5, reference="sentence1")
    assert uncached.scores(checks) == pytest.approx(scores, abs=1e-6)


def test_role_claim_keeps_claims_and_rejects_rewrites_into_methods(fixtures):
    abstracts = [
        Abstract(pmid=a.pmid, sentences=tuple(a.sentences), origin=a.origin)
        for a in read_corpus(fixtures / "rct_plain.txt")
    ] * 3
    claim = RoleClaim(abstracts, threshold=0.9, max_sentences=50_000, seed=0)
    original = "Velanoxet reduced major bleeding compared with warfarin in adults with atrial fibrillation."
    kept, lost = claim.scores(
        [
            ConstraintCheck(
                "Velanoxet increased major bleeding compared with warfarin in adults.", "", original
            ),
            ConstraintCheck("We randomised adults to velanoxet or warfarin.", "", original),
        ]
    )
    assert kept >= 0.9 and lost < 0.9
    assert claim.scores([ConstraintCheck(original, "", original)]) == [1.0]
