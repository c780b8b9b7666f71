"""Edit constraints, yes/no answers that hold too little probability, and which pairs are searched."""

from __future__ import annotations

import pytest

from scicon.backbones.base import YesNo
from scicon.constraints.base import ConstraintCheck
from scicon.constraints.edits import Changed, MaxWordsChanged, NoRepeat, NotEmpty, NotSentence1
from scicon.evolve.metrics import evolve_metrics
from scicon.evolve.pipeline import select_pairs
from scicon.evolve.runner import run_searches
from scicon.params import Thresholds
from scicon.records.base import TargetLabel
from scicon.records.corpus import Role
from scicon.records.pairs import Pair, PairKind
from scicon.sampling import apportion
from scicon.search.base import rejected_edits
from tests.evolve_helpers import assemble, evolve_params, search_sizes
from tests.scripted_backend import ScriptedBackend

RESULT = "Major bleeding occurred in 4% of velanoxet and 9% of warfarin patients."
CONCLUSION = "Velanoxet reduced major bleeding compared with warfarin."
EDITS = [NotEmpty(), Changed(), NotSentence1(), MaxWordsChanged(0.5)]
PAIR = Pair(
    pair_id="T1-rc-1-2",
    pmid="T1",
    kind=PairKind.RESULT_CONCLUSION,
    sentence1=RESULT,
    sentence2=CONCLUSION,
    role1=Role.RESULTS,
    role2=Role.CONCLUSIONS,
    index1=1,
    index2=2,
)


@pytest.mark.parametrize(
    ("parent", "candidate", "rejected_by"),
    [
        (CONCLUSION, "Velanoxet increased major bleeding compared with warfarin.", None),
        (CONCLUSION, "Velanoxet did not reduce major bleeding compared with warfarin.", None),
        (CONCLUSION, "  ", "not_empty"),
        (CONCLUSION, "velanoxet reduced major bleeding compared with warfarin", "changed"),  # case, stop
        # a member two edits away may not go back to the unmutated sentence
        ("Velanoxet increased major bleeding compared with aspirin.", CONCLUSION, "changed"),
        (CONCLUSION, RESULT, "not_sentence1"),
        # prompt echoes and meta-text are not word edits of the conclusion
        (
            CONCLUSION,
            "Here is a corrected version of sentence2 with no additional commentary:",
            "max_words_changed",
        ),
        (CONCLUSION, "sentence2: Velanoxet increased bleeding.", "max_words_changed"),
        (
            CONCLUSION,
            "Warfarin reduced minor bruising compared with velanoxet in older adults.",
            "max_words_changed",
        ),
    ],
)
def test_edit_constraints_accept_word_edits_only(parent, candidate, rejected_by):
    assert rejected_edits(EDITS, PAIR, parent, [candidate]) == [rejected_by]


def test_an_edit_is_measured_against_its_parent_not_the_original():
    parent = "Velanoxet increased major bleeding and minor bruising compared with warfarin."
    candidate = parent.replace("increased", "decreased")
    check = ConstraintCheck(candidate, RESULT, CONCLUSION, parent=parent)
    assert MaxWordsChanged(0.3).scores([check]) == [1.0]  # 1 of 11 words; against the original, 4 of 8


def test_a_later_generation_leaves_alone_the_words_earlier_ones_changed():
    original = "Patients on velanoxet had a poorer prognosis than those on warfarin."
    parent = original.replace("poorer", "better")  # the first generation's flip
    undoing = ConstraintCheck(parent.replace("better", "worse"), RESULT, original, parent=parent)
    next_to_it = ConstraintCheck(parent.replace("a better", "a not better"), RESULT, original, parent=parent)
    elsewhere = ConstraintCheck(parent.replace("had", "did not have"), RESULT, original, parent=parent)
    first = ConstraintCheck(parent, RESULT, original, parent=original)
    assert NoRepeat().scores([undoing, next_to_it, elsewhere, first]) == [0.0, 0.0, 1.0, 1.0]


class LowMassBackend(ScriptedBackend):
    """Answers the topic question with almost no probability on yes or no."""

    def yes_no(self, prompts):
        self.yes_no_calls.extend(prompts)
        return [
            YesNo(p_yes=0.5, mass=0.05) if "same exact topic" in p else YesNo(p_yes=0.1, mass=0.9)
            for p in prompts
        ]


def test_a_yes_no_score_below_min_mass_rejects_the_candidate_and_is_counted(tmp_path):
    params = evolve_params(
        search="evolutionary",
        transformation="llm",
        similarity="llm",
        claim="llm",
        goal="llm",
        settings=search_sizes(population_size=2, candidates_per_mutation=2, max_iterations=1),
    )
    backend = LowMassBackend(
        generate=lambda request: "Velanoxet increased major bleeding compared with warfarin."
    )
    thresholds = Thresholds(sim=0.5, claim=0.9, target=0.4)
    searches, context = assemble(params, thresholds, backend, min_mass=0.5)
    result = run_searches(
        [PAIR],
        searches,
        journal=tmp_path / "trace.jsonl",
        config_digest="d",
        recipe="evonli",
        seed=1,
        backbones=context.backbones,
    )
    (trace,) = result.traces
    candidates = [c for g in trace.generations for m in g.members for c in m.candidates]
    assert {c.rejected_by for c in candidates} == {"similarity_low_mass"}
    # a 0.5 from a model that did not answer is never a pass, and nothing after it is asked
    assert all(c.similarity is None and c.claim is None and c.confidence is None for c in candidates)
    assert not any("contains a claim" in p for p in backend.yes_no_calls)
    metrics = evolve_metrics(result.traces, thresholds, 1.0, context.backbones, 0.95)
    assert metrics["rejections"] == {"similarity_low_mass": len(candidates)}
    assert metrics["succeeded"] == 0 and trace.status == "failed"


def pairs_file(conclusion_pairs: int, result_pairs: int) -> list[Pair]:
    """Like the pairs stage writes them: every conclusion-conclusion pair first."""
    made = []
    for kind, count in (
        (PairKind.CONCLUSION_CONCLUSION, conclusion_pairs),
        (PairKind.RESULT_CONCLUSION, result_pairs),
    ):
        for n in range(count):
            role1 = Role.CONCLUSIONS if kind is PairKind.CONCLUSION_CONCLUSION else Role.RESULTS
            made.append(
                PAIR.model_copy(
                    update={
                        "pair_id": f"A{n}-{kind.short}-0-1",
                        "pmid": f"A{n}",
                        "kind": kind,
                        "role1": role1,
                    }
                )
            )
    return made


BOTH_KINDS = ["conclusion_conclusion", "result_conclusion"]


def test_a_sample_of_pairs_keeps_both_kinds_in_proportion_and_grows_by_inclusion():
    pairs = pairs_file(30, 60)
    small = select_pairs(pairs, evolve_params(max_pairs=9, seed=3, pair_kinds=BOTH_KINDS))
    kinds = [pair.kind for pair in small]
    assert kinds.count(PairKind.CONCLUSION_CONCLUSION) == 3 and kinds.count(PairKind.RESULT_CONCLUSION) == 6
    assert small == [pair for pair in pairs if pair in small]  # file order
    assert select_pairs(pairs, evolve_params(max_pairs=9, seed=3, pair_kinds=BOTH_KINDS)) == small
    larger = select_pairs(pairs, evolve_params(max_pairs=30, seed=3, pair_kinds=BOTH_KINDS))
    assert set(p.pair_id for p in small) <= set(p.pair_id for p in larger)
    assert select_pairs(pairs, evolve_params(max_pairs=9, seed=4, pair_kinds=BOTH_KINDS)) != small
    assert select_pairs(pairs, evolve_params(max_pairs=None, pair_kinds=BOTH_KINDS)) == pairs
    only_results = select_pairs(pairs, evolve_params(max_pairs=None, pair_kinds=["result_conclusion"]))
    assert {p.kind for p in only_results} == {PairKind.RESULT_CONCLUSION}


def test_quotas_add_up_and_never_exceed_a_kind():
    def quotas(sizes: dict[str, int], total: int) -> dict[str, int]:
        return apportion(sizes, total, caps=sizes)  # as select_pairs shares out evolve.max_pairs

    assert quotas({"cc": 1, "rc": 99}, 10) == {"cc": 0, "rc": 10}
    assert quotas({"cc": 5, "rc": 5}, 5) == {"cc": 3, "rc": 2}  # a tie goes to the first name
    assert quotas({"cc": 1, "rc": 3}, 2) == {"cc": 0, "rc": 2}  # a tie of remainders to the larger kind
    assert sum(quotas({"a": 7, "b": 13, "c": 1}, 11).values()) == 11


def test_targets_and_edits_are_each_listed_once():
    with pytest.raises(ValueError, match="listed more than once"):
        evolve_params(edits=["changed", "changed"])
    with pytest.raises(ValueError, match="listed more than once"):
        evolve_params(targets=[TargetLabel.CONTRADICTION, TargetLabel.CONTRADICTION])
