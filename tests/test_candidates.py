"""The candidate checks every rewriter shares: grounded edits and fluency, in the negatives
stage and as EvoNLI constraints."""

from __future__ import annotations

import pytest

from scicon.backbones import CachedBackbone
from scicon.backbones.llama_cpp_backend import LlamaCppBackend
from scicon.candidates import CandidateParams, FluencyScorer
from scicon.constraints.base import ConstraintCheck
from scicon.constraints.edits import Grounded
from scicon.errors import ParamsError
from scicon.grounding import Grounding, is_grounded
from scicon.models import resolve_model
from scicon.records.corpus import Abstract, Sentence
from scicon.records.pairs import Pair, PairKind
from scicon.rules.generators import build_negatives
from scicon.rules.params import NegativesParams
from tests.params_defaults import section, section_values

GROUNDING = Grounding(window=3, stem_length=5)
OPERATORS = section_values("candidates")["operators"]

RESULT = "Pain scores fell by 30% with velanoxet and were unchanged with placebo."
CONCLUSION = "Velanoxet reduces postoperative pain, and it is well tolerated by older adults."


def test_an_edit_on_the_shared_clause_is_grounded():
    edited = "Velanoxet does not reduce postoperative pain, and it is well tolerated by older adults."
    assert is_grounded(CONCLUSION, edited, RESULT, GROUNDING)


def test_an_edit_of_a_clause_the_evidence_never_mentions_is_not():
    edited = "Velanoxet reduces postoperative pain, and it is not well tolerated by older adults."
    assert not is_grounded(CONCLUSION, edited, RESULT, GROUNDING)


def test_an_edit_far_from_the_shared_words_is_not_grounded_within_the_window():
    sentence = "Velanoxet given twice daily for six consecutive weeks in the spring may improve sleep."
    evidence = "Velanoxet was given to 120 adults."
    far = "Velanoxet given twice daily for six consecutive weeks in the spring cannot improve sleep."
    assert not is_grounded(sentence, far, evidence, GROUNDING)
    assert is_grounded(sentence, far, evidence, Grounding(window=20, stem_length=5))


def test_unchanged_text_and_a_sentence_sharing_nothing_are_not_grounded():
    assert not is_grounded(CONCLUSION, CONCLUSION, RESULT, GROUNDING)
    assert not is_grounded(
        CONCLUSION, CONCLUSION.replace("reduces", "worsens"), "Blood counts were normal.", GROUNDING
    )


def test_the_grounded_edit_constraint_judges_against_the_original_sentence2():
    constraint = Grounded(GROUNDING)
    near = ConstraintCheck(
        "Velanoxet does not reduce postoperative pain, and it is well tolerated by older adults.",
        RESULT,
        CONCLUSION,
    )
    far = ConstraintCheck(
        "Velanoxet reduces postoperative pain, and it is not well tolerated by older adults.",
        RESULT,
        CONCLUSION,
    )
    assert constraint.scores([near, far]) == [1.0, 0.0]


def _pair(kind: PairKind = PairKind.RESULT_CONCLUSION) -> Pair:
    return Pair(
        pair_id="T1-rc-0-1",
        pmid="T1",
        kind=kind,
        sentence1=RESULT,
        sentence2=CONCLUSION,
        role1="RESULTS",
        role2="CONCLUSIONS",
        index1=0,
        index2=1,
    )


TRIAL = Abstract(
    pmid="T1",
    sentences=[Sentence(text=RESULT, role="RESULTS"), Sentence(text=CONCLUSION, role="CONCLUSIONS")],
    origin="fixture line 1",
)


def test_negatives_keep_only_grounded_contradictions_and_say_what_they_left_out():
    params = section(
        "negatives",
        NegativesParams,
        filters=["grounded"],
        control_ratio=0.0,
        max_per_pair=5,
        candidates_per_sentence=5,
    )
    result = build_negatives([_pair()], {"T1": TRIAL}, params, OPERATORS, grounding=GROUNDING, progress=False)
    assert result.negatives, "the shared clause can be negated"
    for negative in result.negatives:
        assert is_grounded(CONCLUSION, negative.hypothesis, RESULT, GROUNDING)
        assert "well tolerated by older adults" in negative.hypothesis
    left_out = [s for s in result.skipped if s.reason == "not_grounded"]
    assert left_out and all(s.where == "T1-rc-0-1 sentence2" for s in left_out)
    assert result.metrics["skipped"]["not_grounded"] == len(left_out)

    unfiltered = build_negatives(
        [_pair()],
        {"T1": TRIAL},
        section("negatives", NegativesParams, filters=[], control_ratio=0.0, max_per_pair=5),
        OPERATORS,
        progress=False,
    )
    assert any(not is_grounded(CONCLUSION, n.hypothesis, RESULT, GROUNDING) for n in unfiltered.negatives)


def test_negatives_edit_only_the_pair_kinds_asked_for():
    params = section("negatives", NegativesParams, filters=[], pair_kinds=["result_conclusion"])
    result = build_negatives(
        [_pair(PairKind.CONCLUSION_CONCLUSION)], {"T1": TRIAL}, params, OPERATORS, progress=False
    )
    assert result.negatives == []
    assert result.metrics["pairs_of_kinds_not_edited"] == {"conclusion_conclusion": 1}


@pytest.fixture(scope="module")
def fluency() -> FluencyScorer:
    params = section("candidates", CandidateParams).fluency
    backend = LlamaCppBackend(
        resolve_model(params.language_model.model), chat_template="none", context_length=512
    )
    with CachedBackbone(backend) as backbone:
        yield FluencyScorer(backbone, params)


@pytest.mark.slow
def test_a_garbled_rewrite_loses_more_likelihood_than_a_clean_negation(fluency):
    clean = "Velanoxet does not reduce postoperative pain, and it is well tolerated by older adults."
    garbled = "Velanoxet reduces postoperative pain, and it is well does not tolerated by older adults."
    clean_drop, garbled_drop = fluency.drops([CONCLUSION, CONCLUSION], [clean, garbled])
    assert garbled_drop > clean_drop
    assert fluency.passes(garbled_drop) == (garbled_drop <= fluency.max_drop)
    assert fluency.drops([CONCLUSION], [CONCLUSION]) == [0.0]


def test_evolve_rule_transformation_rewrites_with_the_candidates_operators_unless_told_otherwise():
    from scicon.evolve.assembly import validated_settings
    from scicon.params import Thresholds
    from scicon.transformations.base import MutationRequest
    from scicon.transformations.rules import rule_replacement
    from tests.evolve_helpers import context, evolve_params, shared

    thresholds = Thresholds(sim=0.5, claim=0.5, target=0.5)
    candidates = section("candidates", CandidateParams, operators=["negation_insert"])
    params = evolve_params(transformation="rules")
    settings = validated_settings(params, shared(thresholds, candidates=candidates))[
        ("transformation", "rules")
    ]
    assert settings.operators is None and settings.candidate_operators == ("negation_insert",)
    rules = rule_replacement(settings, context())
    sentence = "Velanoxet reduced mortality and increased survival."
    request = MutationRequest(sentence1="Mortality fell.", sentence2=sentence, count=5, seed=3)
    [texts] = rules.propose([request])
    made = [text for text in texts if text is not None]
    assert made and all("not" in text for text in made)  # never "decreased survival" (polarity)
    own = rule_replacement(settings.model_copy(update={"operators": ("polarity_lexicon",)}), context())
    assert own.mutator.operators == ("polarity_lexicon",)
    with pytest.raises(
        ParamsError, match="transformation.rules: transformation 'rules' reads candidates.operators"
    ):
        validated_settings(params, shared(thresholds, candidates=None))
    in_its_block = evolve_params(
        transformation="rules", settings={"transformation": {"rules": {"candidate_operators": ["role_swap"]}}}
    )
    with pytest.raises(ParamsError, match=r"rules.candidate_operators: .*reads it from candidates.operators"):
        validated_settings(in_its_block, shared(thresholds))


class CountingLanguageModel:
    """Log-likelihoods from a table (unlisted texts are fluent), recording every text scored."""

    def __init__(self, garbled: set[str]):
        self.garbled = garbled
        self.scored: list[str] = []

    def log_likelihood(self, texts):
        self.scored += texts
        return [-100.0 if text in self.garbled else -1.0 for text in texts]

    def metrics(self) -> dict:
        return {}


def test_fluency_scores_candidates_in_order_until_enough_pass_and_never_one_after():
    params = section("negatives", NegativesParams, filters=["fluent"], control_ratio=0.0, max_per_pair=1,
                     candidates_per_sentence=5)  # fmt: skip
    fluency_params = section("candidates", CandidateParams).fluency
    everything = build_negatives([_pair()], {"T1": TRIAL}, params.model_copy(update={"filters": ()}),
                                 OPERATORS, progress=False)  # fmt: skip
    order = [n.hypothesis for n in build_negatives(
        [_pair()], {"T1": TRIAL}, params.model_copy(update={"filters": (), "max_per_pair": 5}), OPERATORS,
        progress=False).negatives]  # fmt: skip
    assert len(order) >= 3 and everything.negatives[0].hypothesis == order[0]

    model = CountingLanguageModel(garbled={order[0]})  # the first candidate reads as machine-made
    result = build_negatives([_pair()], {"T1": TRIAL}, params, OPERATORS,
                             fluency=FluencyScorer(model, fluency_params), progress=False)  # fmt: skip
    assert [n.hypothesis for n in result.negatives] == [order[1]]  # the first fluent one, as before
    assert [s.detail for s in result.skipped if s.reason == "not_fluent"] == [order[0]]
    # one round for the first candidate, one for the next: the candidates after it are never scored
    assert set(model.scored) == {CONCLUSION, order[0], order[1]}
    assert result.metrics["fluency"]["candidates_scored"] == 2
    assert result.metrics["fluency"]["candidates_not_needed"] == len(order) - 2
