"""The cheap constraints on real models and data: MiniLM topic similarity, role-based claims."""

from __future__ import annotations

from pathlib import Path

import pytest

from scicon.backbones.cache import CallCache
from scicon.constraints.base import ConstraintCheck
from scicon.constraints.similarity import EmbeddingSimilarity
from tests.scripted_backend import ScriptedBackend

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


@pytest.mark.slow
def test_the_registered_filters_are_calibrated_probabilities_and_report_their_quality(tmp_path):
    """similarity.embedding and claim.trained as the evolve stage builds them, on the demo corpus."""
    from scicon.corpus import ingest
    from scicon.corpus.params import IngestParams
    from scicon.evolve.params import EvolveParams
    from scicon.params import Thresholds
    from tests.evolve_helpers import assemble
    from tests.params_defaults import section

    source = str(Path(__file__).resolve().parent.parent / "data/demo/demo_rct.txt")
    abstracts = ingest(section("ingest", IngestParams, source=source), cache_dir=tmp_path).abstracts
    params = section(
        "evolve", EvolveParams, similarity="embedding", claim="trained", fluency="off", goal="llm"
    )
    searches, assembly = assemble(
        params, Thresholds(sim=0.5, claim=0.1, target=0.4), ScriptedBackend(), abstracts
    )
    (search,) = searches.values()
    similarity, claim = sorted(search.checks.constraints, key=lambda c: c.kind, reverse=True)
    assert (similarity.kind, claim.kind) == ("similarity", "claim")
    checks = [
        ConstraintCheck("Velanoxet increased major bleeding compared with warfarin.", RESULT, CONCLUSION),
        ConstraintCheck(
            "Here is a corrected version of sentence2 with no additional commentary:", RESULT, CONCLUSION
        ),
        ConstraintCheck(
            "Adults were randomised to velanoxet or warfarin for twelve months.", RESULT, CONCLUSION
        ),
    ]
    rewrite, echo, methods = similarity.scores(checks)
    assert rewrite > 0.5 > echo  # P(same topic): a rewrite keeps the topic, a prompt echo does not
    rewrite, echo, methods = claim.scores(checks)
    assert rewrite > methods and rewrite > echo
    assert set(assembly.reports()) == {"similarity", "claim"}
    assert 0.5 < assembly.reports()["similarity"]["roc_auc"] <= 1.0
