"""Trivial baselines on small fixtures: what each computes, and that none leaks the labels."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from scicon.errors import ParamsError
from scicon.evaluate.baselines import BASELINES, BaselineUnavailable
from scicon.evaluate.baselines.embedding_cosine import EmbeddingCosine
from scicon.evaluate.baselines.hypothesis_only import fold_group, out_of_fold_scores
from scicon.evaluate.baselines.negation_cue import negation_cue_scores
from scicon.evaluate.baselines.overlap import overlap_scores
from scicon.evaluate.run import build_baselines
from scicon.lexical import content_words, jaccard
from scicon.records.benchmark import BenchmarkPair
from tests.params_defaults import section_values
from tests.tiny_models import save_tiny_bert


def pair(first: str, second: str, label: int = 0, key: str = "k", group: str | None = None) -> BenchmarkPair:
    return BenchmarkPair(first, second, label, key, group)


def test_every_baseline_is_registered_and_params_yaml_configures_them_all():
    assert BASELINES.names() == ("embedding_cosine", "hypothesis_only", "negation_cue", "overlap")
    built = build_baselines(section_values("evaluate")["baselines"], seed=0)
    assert {b.name: b.two_sided for b in built} == {
        "hypothesis_only": False,
        "overlap": True,
        "embedding_cosine": True,
        "negation_cue": False,
    }
    with pytest.raises(ParamsError, match=r"evaluate\.baselines\.premise_only: unknown baseline"):
        build_baselines({"premise_only": {}}, seed=0)
    with pytest.raises(ParamsError, match=r"evaluate\.baselines\.hypothesis_only\.folds"):
        build_baselines({"hypothesis_only": {"folds": 1}}, seed=0)


def test_negation_cue_fires_when_exactly_one_sentence_is_negated():
    pairs = [
        pair("Drug A lowered pressure.", "Drug A did not lower pressure."),  # one negated
        pair("Drug A doesn't help.", "Drug A helps."),  # contraction
        pair("It cannot harm.", "It can harm."),
        pair("No effect was seen.", "There was never an effect."),  # both negated
        pair("Drug A lowered pressure.", "Pressure fell on drug A."),  # neither
        pair("Knotty problems were noted.", "Nothing was noted."),  # "knotty" is not a negation
    ]
    assert negation_cue_scores(pairs) == [1.0, 1.0, 1.0, 0.0, 0.0, 1.0]


def test_overlap_is_the_jaccard_of_content_words():
    assert content_words("The drug did not lower the blood pressure.") == {
        "drug",
        "did",
        "lower",
        "blood",
        "pressure",
    }
    # {drug, lowered, pressure} vs {drug, raised, pressure}: 2 shared of 4
    assert jaccard("The drug lowered pressure.", "The drug raised pressure.") == pytest.approx(0.5)
    # negation words are stop words: a sentence and its negation overlap fully
    assert jaccard("The drug lowered pressure.", "The drug never lowered pressure.") == 1.0
    assert jaccard("It is.", "Was it?") == 0.0  # no content words at all
    assert overlap_scores([pair("A rose.", "A rose.")]) == [1.0]


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory):
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-encoder"))


def test_embedding_cosine_is_the_cosine_of_each_pair(tiny_encoder):
    from sentence_transformers import SentenceTransformer

    pairs = [
        pair("drug lowered pressure in adults .", "drug lowered pressure in adults ."),
        pair("drug lowered pressure in adults .", "pain worsened in children ."),
        pair("mortality .", "drug did not reduce mortality ."),
    ]
    scores = EmbeddingCosine(str(tiny_encoder))(pairs)
    encoder = SentenceTransformer(str(tiny_encoder), device="cpu")
    for score, p in zip(scores, pairs, strict=True):
        a, b = encoder.encode([p.sentence1, p.sentence2])
        assert score == pytest.approx(float(np.dot(a, b) / np.linalg.norm(a) / np.linalg.norm(b)), abs=1e-5)
    assert scores[0] == pytest.approx(1.0, abs=1e-5) and scores[1] < 1.0


def cue_benchmark(n_groups: int = 40) -> list[BenchmarkPair]:
    """Contradicting hypotheses carry a cue word ("never"): the hypothesis alone gives them away."""
    pairs = []
    for g in range(n_groups):
        for label in (0, 1):
            second = f"claim {g} says the drug {'never ' if label else ''}works"
            pairs.append(pair(f"premise {g}", second, label, f"{g}-{label}", group=f"g{g}"))
    return pairs


def test_hypothesis_only_finds_a_cue_out_of_fold_and_is_seeded():
    pairs = cue_benchmark()
    scores = out_of_fold_scores(pairs, folds=5, seed=3)
    assert roc_auc_score([p.label for p in pairs], scores) > 0.95
    assert out_of_fold_scores(pairs, folds=5, seed=3) == scores


def test_hypothesis_only_cannot_memorise_a_repeated_claim():
    """Each claim appears twice with one label and shares no word with other claims: there is
    nothing to learn, only to memorise. Grouping the repeats into one fold keeps the score at
    chance; splitting them (one group per pair) would leak the label."""
    rng = np.random.default_rng(0)
    pairs = []
    for c in range(60):
        label = int(rng.integers(0, 2))
        claim = f"w{c}a w{c}b w{c}c"
        pairs += [pair(f"evidence {c}-{r}", claim, label, f"{c}-{r}") for r in range(2)]
    labels = [p.label for p in pairs]
    assert fold_group(pairs[0]) == "w0a w0b w0c"  # no group given: identical claims share a fold
    grouped = roc_auc_score(labels, out_of_fold_scores(pairs, folds=5, seed=0))
    leaky = [BenchmarkPair(p.sentence1, p.sentence2, p.label, p.key, group=p.key) for p in pairs]
    memorised = roc_auc_score(labels, out_of_fold_scores(leaky, folds=5, seed=0))
    assert grouped < 0.65 and memorised > 0.9


def test_hypothesis_only_needs_two_groups_and_survives_a_one_class_fold():
    one_group = [pair("p", f"h{i}", i % 2, str(i), group="same") for i in range(6)]
    with pytest.raises(BaselineUnavailable, match="one group"):
        out_of_fold_scores(one_group, folds=5, seed=0)
    # three groups, only one with a contradiction: some training folds see a single class
    few = [pair("p", f"h{i}", int(i == 0), str(i), group=f"g{i % 3}") for i in range(6)]
    scores = out_of_fold_scores(few, folds=5, seed=0)
    assert len(scores) == 6 and all(0.0 <= s <= 1.0 for s in scores)


def test_two_sided_baselines_are_reported_both_ways_and_combinations_hold():
    built = {b.name: b for b in build_baselines({"overlap": {}, "negation_cue": {}}, seed=0)}
    pairs = [
        pair(a, b) for a, b in itertools.product(["The drug lowered pressure."], ["The drug raised it."])
    ]
    assert built["overlap"].two_sided and not built["negation_cue"].two_sided
    assert built["overlap"].score(pairs) == overlap_scores(pairs)
