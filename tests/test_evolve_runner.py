"""The evolve run: recipes wired to a backbone, resumable journal, per-pair errors, metrics."""

from __future__ import annotations

import re

import pytest

from scicon.backbones.base import BackboneError
from scicon.errors import InputFormatError, ParamsError
from scicon.evolve.metrics import evolve_metrics, success_by_generation
from scicon.evolve.params import EvolveParams, recipe_name
from scicon.evolve.recipes import RECIPES, recipes_table
from scicon.evolve.runner import read_journal, run_searches
from scicon.params import Thresholds
from scicon.records.base import TargetLabel
from scicon.records.corpus import Abstract, Role, Sentence
from scicon.records.pairs import Pair, PairKind
from tests.evolve_helpers import assemble, evolve_params, search_sizes
from tests.scripted_backend import ScriptedBackend

THRESHOLDS = Thresholds(sim=0.5, claim=0.9, target=0.4)


def make_pair(n: int) -> Pair:
    return Pair(
        pair_id=f"P{n}-rc-0-1",
        pmid=f"P{n}",
        kind=PairKind.RESULT_CONCLUSION,
        sentence1=f"Outcome {n} fell by {n}0% with drug {n} compared with placebo.",
        sentence2=f"Drug {n} reduced outcome {n}.",
        role1=Role.RESULTS,
        role2=Role.CONCLUSIONS,
        index1=0,
        index2=1,
    )


PAIRS = [make_pair(n) for n in range(1, 7)]
ABSTRACTS = {
    p.pmid: Abstract(
        pmid=p.pmid,
        sentences=(
            Sentence(role=Role.RESULTS, text=p.sentence1),
            Sentence(role=Role.CONCLUSIONS, text=p.sentence2),
        ),
        origin="test",
    )
    for p in PAIRS
}


def rewrite(request) -> str:
    """Pairs 1-4 get a flipped verb on some seeds; 5 and 6 never change meaning."""
    member = re.search(r"sentence2: (Drug (\d) .*)\nAnswer:", request.prompt)
    sentence, number = member.group(1), int(member.group(2))
    if number <= 4 and request.seed % 3 == 0:
        return f"Answer: {sentence.replace('reduced', 'increased')}"
    return f"{sentence[:-1]} in adults."


def yes(prompt: str) -> float:
    if prompt.startswith("You are a helpful assistant expert in Biomedical domain.\nWe want to detect"):
        return 0.9 if "increased" in prompt.split("sentence2:")[1] else 0.1
    if "same exact topic" in prompt:
        return 0.8
    return 0.95  # claim detection


PAPER_PARTS = dict(search="evolutionary", transformation="llm", similarity="llm", claim="llm", goal="llm")


def run(tmp_path, backend, name="trace.jsonl", workers=1, params=None):
    params = params or evolve_params(
        search_sizes(population_size=2, candidates_per_mutation=2, max_iterations=3), seed=3, **PAPER_PARTS
    )
    searches, context = assemble(params, THRESHOLDS, backend, list(ABSTRACTS.values()))
    result = run_searches(
        PAIRS,
        searches,
        journal=tmp_path / name,
        config_digest="digest-1",
        recipe=recipe_name(params),
        seed=params.seed,
        abstracts=ABSTRACTS,
        backbones=context.backbones,
        workers=workers,
    )
    return result, context.backbones


def test_llm_recipe_end_to_end_with_a_scripted_backbone(tmp_path):
    result, backbone = run(tmp_path, ScriptedBackend(generate=rewrite, yes=yes))
    statuses = {t.pair_id: t.status for t in result.traces}
    assert statuses["P5-rc-0-1"] == "failed" and statuses["P6-rc-0-1"] == "failed"
    accepted = {a.pair_id: a for a in result.accepted}
    assert set(accepted) <= {f"P{n}-rc-0-1" for n in range(1, 5)} and accepted
    first = next(iter(accepted.values()))
    assert "increased" in first.sentence2 and first.recipe == "evonli"
    assert [(e.original, e.replacement) for e in first.edits] == [("reduced", "increased")]
    assert first.similarity == 0.8 and first.claim == 0.95
    metrics = evolve_metrics(result.traces, THRESHOLDS, 1.0, backbone, 0.95)
    assert metrics["pairs_tried"] == 6 and metrics["succeeded"] == len(accepted)
    assert (
        metrics["attack_success_rate_ci_low"]
        < metrics["attack_success_rate"]
        < metrics["attack_success_rate_ci_high"]
    )
    assert metrics["similarity_pass_rate"] == 1.0 and metrics["claim_pass_rate"] == 1.0
    assert metrics["backbone"]["calls_requested"] == sum(t.backbone_calls for t in result.traces)
    computed = sum(t.backbone_calls - t.cache_hits for t in result.traces)
    assert metrics["backbone"]["calls_computed"] == computed
    assert metrics["computed_calls_per_accepted_pair"] == round(computed / len(accepted), 2)
    assert metrics["calls_per_accepted_pair"] >= metrics["computed_calls_per_accepted_pair"] > 0
    rows = success_by_generation(result.traces, 3)
    assert rows[-1]["accepted"] == len(accepted)


def test_success_rate_is_undefined_not_zero_when_every_pair_is_skipped(tmp_path):
    """Originals the goal already rates contradictory are skipped; no attempt, no rate."""
    result, backbone = run(tmp_path, ScriptedBackend(generate=rewrite, yes=lambda prompt: 0.99))
    assert {t.status for t in result.traces} == {"skipped"}
    metrics = evolve_metrics(result.traces, THRESHOLDS, 1.0, backbone, 0.95)
    assert metrics["skipped"] == metrics["pairs_tried"] == 6
    assert metrics["attack_success_rate"] is None
    assert metrics["attack_success_rate_ci_low"] is None and metrics["attack_success_rate_ci_high"] is None
    assert {row["cumulative_success_rate"] for row in success_by_generation(result.traces, 3)} == {None}


def test_a_journal_record_torn_mid_character_is_dropped_and_a_broken_one_before_the_end_is_named(tmp_path):
    run(tmp_path, ScriptedBackend(generate=rewrite, yes=yes))
    journal = tmp_path / "trace.jsonl"
    finished = read_journal(journal, "digest-1")
    whole = journal.read_bytes()
    # a kill can cut a write inside a multi-byte character: the last record is dropped
    journal.write_bytes(whole + '{"pair_id": "P9-rc-0-1", "sentence1": "α'.encode()[:-1])
    assert read_journal(journal, "digest-1") == finished
    # the same damage anywhere else is not an interrupted write: the run stops, naming it
    journal.write_bytes(b'{"pair_id": "P9-rc-0-1"}\n' + whole)
    with pytest.raises(InputFormatError, match=r"trace\.jsonl:1: not a valid PairTrace record"):
        read_journal(journal, "digest-1")


def test_resume_after_interruption_gives_the_uninterrupted_output(tmp_path):
    whole, whole_backbone = run(tmp_path, ScriptedBackend(generate=rewrite, yes=yes), name="whole.jsonl")

    calls = {"n": 0}

    def interrupting(request):
        calls["n"] += 1
        if calls["n"] > 20:
            raise KeyboardInterrupt
        return rewrite(request)

    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, ScriptedBackend(generate=interrupting, yes=yes), name="resumed.jsonl")
    partial = read_journal(tmp_path / "resumed.jsonl", "digest-1")
    assert 0 < len(partial) < len(PAIRS)
    # a process killed mid-write leaves a torn last line
    with open(tmp_path / "resumed.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"pair_id": "P9-rc-0-1", "pmid": "P')

    backend = ScriptedBackend(generate=rewrite, yes=yes)
    resumed, resumed_backbone = run(tmp_path, backend, name="resumed.jsonl")
    assert resumed.resumed == len(partial)
    assert (tmp_path / "resumed.jsonl").read_text() == (tmp_path / "whole.jsonl").read_text()
    assert resumed.accepted == whole.accepted
    # the output's cost counts the resumed pairs too; this run's own work is less
    whole_metrics = evolve_metrics(whole.traces, THRESHOLDS, 1.0, whole_backbone, 0.95)
    resumed_metrics = evolve_metrics(resumed.traces, THRESHOLDS, 1.0, resumed_backbone, 0.95)
    for key in ("computed_calls_per_pair", "calls_per_accepted_pair", "computed_calls_per_accepted_pair"):
        assert resumed_metrics[key] == whole_metrics[key]
    assert resumed_metrics["backbone"]["calls_requested"] < whole_metrics["backbone"]["calls_requested"]
    # finished pairs were not searched again
    searched = {re.search(r"Drug (\d)", r.prompt).group(1) for r in backend.generate_calls}
    assert not searched & {p.pmid[1:] for p in PAIRS if (p.pair_id, "contradiction") in partial}


def test_a_backbone_failure_is_recorded_for_its_pair_and_retried_next_run(tmp_path):
    def failing_for_pair_3(request):
        if "Drug 3 " in request.prompt:
            raise BackboneError("http://server/v1/chat/completions: failed after 5 attempts: ReadTimeout")
        return rewrite(request)

    result, backbone = run(tmp_path, ScriptedBackend(generate=failing_for_pair_3, yes=yes))
    by_id = {t.pair_id: t for t in result.traces}
    assert by_id["P3-rc-0-1"].status == "error" and "ReadTimeout" in by_id["P3-rc-0-1"].error
    assert sum(t.status == "error" for t in result.traces) == 1
    assert evolve_metrics(result.traces, THRESHOLDS, 1.0, backbone, 0.95)["errors"] == 1

    backend = ScriptedBackend(generate=rewrite, yes=yes)
    again, _ = run(tmp_path, backend)
    assert {t.pair_id: t.status for t in again.traces}["P3-rc-0-1"] != "error"
    assert all("Drug 3 " in r.prompt for r in backend.generate_calls)


def test_workers_give_the_same_result_as_a_single_worker(tmp_path):
    single, _ = run(tmp_path, ScriptedBackend(generate=rewrite, yes=yes), name="one.jsonl")
    parallel, _ = run(tmp_path, ScriptedBackend(generate=rewrite, yes=yes), name="four.jsonl", workers=4)
    assert (tmp_path / "one.jsonl").read_text() == (tmp_path / "four.jsonl").read_text()
    assert single.accepted == parallel.accepted


def test_journal_records_of_other_settings_are_not_reused(tmp_path):
    run(tmp_path, ScriptedBackend(generate=rewrite, yes=yes))
    assert len(read_journal(tmp_path / "trace.jsonl", "digest-1")) == len(PAIRS)
    assert read_journal(tmp_path / "trace.jsonl", "another-digest") == {}


def test_recipe_names_follow_the_paper_table():
    assert recipe_name(evolve_params(**PAPER_PARTS)) == "evonli"
    assert recipe_name(evolve_params(**{**PAPER_PARTS, "similarity": "off"})) == "no_similarity_check"
    assert recipe_name(evolve_params(**{**PAPER_PARTS, "claim": "off"})) == "no_claim_check"
    assert recipe_name(evolve_params(**{**PAPER_PARTS, "transformation": "random"})) == "random_replacement"
    assert recipe_name(evolve_params(**{**PAPER_PARTS, "search": "direct_prompt"})) == "direct_prompt"
    assert recipe_name(evolve_params(**{**PAPER_PARTS, "similarity": "embedding"})) == "custom"
    assert len({recipe.name for recipe in RECIPES}) == len(RECIPES)
    assert recipes_table().count("\n") == len(RECIPES) + 1


def test_a_recipe_name_fills_the_parts_left_null_and_a_part_it_contradicts_is_an_error():
    from scicon.evolve.recipes import BY_NAME, PARTS
    from scicon.params import validate_section
    from tests.params_defaults import section_values

    assert evolve_params().recipe is None and evolve_params().transformation == "rules"  # the demo's parts
    unset = dict.fromkeys(PARTS)
    params = evolve_params(recipe="no_claim_check", **unset)
    assert {part: getattr(params, part) for part in PARTS} == BY_NAME["no_claim_check"].parts()
    assert recipe_name(params) == "no_claim_check"
    agreeing = evolve_params(recipe="no_claim_check", **{**unset, "claim": "off", "search": "evolutionary"})
    assert agreeing == params
    with pytest.raises(
        ParamsError, match=r"evolve.similarity: .*evolve.recipe 'evonli' sets evolve.similarity to 'llm'"
    ):
        validate_section(
            EvolveParams,
            {**section_values("evolve"), "recipe": "evonli", **unset, "similarity": "embedding"},
            "evolve.",
        )
    with pytest.raises(ParamsError, match=r"evolve.transformation: .*evolve.recipe 'evonli' sets"):
        validate_section(EvolveParams, {**section_values("evolve"), "recipe": "evonli"}, "evolve.")
    with pytest.raises(
        ParamsError, match=r"evolve.recipe: .*unknown recipe 'evonly' \(known: evonli, no_claim"
    ):
        validate_section(EvolveParams, {**section_values("evolve"), "recipe": "evonly"}, "evolve.")


def test_combinations_that_cannot_mean_what_they_say_are_rejected():
    direct_with_rules = evolve_params(**{**PAPER_PARTS, "search": "direct_prompt", "transformation": "rules"})
    with pytest.raises(ParamsError, match="evolve.search: 'direct_prompt' needs evolve.transformation"):
        assemble(direct_with_rules, THRESHOLDS, ScriptedBackend())


def test_the_searches_read_their_sizes_from_their_own_block_and_the_plot_has_their_generations():
    sized = evolve_params(search_sizes(population_size=1, max_iterations=3), **PAPER_PARTS)
    searches, evolutionary = assemble(sized, THRESHOLDS, ScriptedBackend())
    (search,) = searches.values()
    assert (search.settings.population_size, evolutionary.max_generations) == (1, 3)
    direct_parts = {**PAPER_PARTS, "search": "direct_prompt"}
    assert assemble(evolve_params(**direct_parts), THRESHOLDS, ScriptedBackend())[1].max_generations == 1
    given = evolve_params({"search": {"direct_prompt": {"max_iterations": 2}}}, **direct_parts)
    with pytest.raises(ParamsError, match=r"evolve.settings.search.direct_prompt: .* takes no settings"):
        assemble(given, THRESHOLDS, ScriptedBackend())
    without = {part: blocks for part, blocks in sized.settings.items() if part != "search"}
    with pytest.raises(ParamsError, match=r"evolve.settings.search.evolutionary: .* missing"):
        assemble(sized.model_copy(update={"settings": without}), THRESHOLDS, ScriptedBackend())
    assert [row["generation"] for row in success_by_generation([], 1)] == [1]


def test_unknown_components_and_misspelt_settings_name_the_key():
    with pytest.raises(ParamsError, match=r"evolve.transformation: unknown transformation 'llm2'"):
        assemble(evolve_params(transformation="llm2"), THRESHOLDS, ScriptedBackend())
    with pytest.raises(ParamsError, match=r"evolve.settings.transformation.llm.temprature"):
        assemble(
            evolve_params(settings={"transformation": {"llm": {"temprature": 0.5}}}),
            THRESHOLDS,
            ScriptedBackend(),
        )


def test_rule_and_mixed_transformations_propose_deterministic_edits():
    from scicon.transformations.base import MutationRequest
    from scicon.transformations.rules import RuleReplacement

    sentence = "Velanoxet significantly reduced nocturnal hypoglycaemia in adults with type 2 diabetes."
    request = MutationRequest(sentence1="x", sentence2=sentence, original=sentence, seed=3, count=4)
    rules = RuleReplacement(["negation_insert", "polarity_lexicon"])
    first = rules.propose([request])[0]
    assert first == rules.propose([request])[0]
    assert len(first) == 4
    assert (
        "Velanoxet significantly increased nocturnal hypoglycaemia in adults with type 2 diabetes." in first
    )
    assert all(text is None or text != sentence for text in first)

    params = evolve_params(
        **{**PAPER_PARTS, "transformation": "mixed"},
        settings={
            "transformation": {
                "mixed": {"parts": {"llm": 0.5, "rules": 0.5}},
                "rules": {"operators": ["negation_insert"]},
            }
        },
    )
    backend = ScriptedBackend(generate=lambda r: "Velanoxet did nothing.")
    searches, _ = assemble(params, THRESHOLDS, backend, list(ABSTRACTS.values()))
    search = searches[TargetLabel.CONTRADICTION]
    proposals = search.transformation.propose([request])[0]
    assert len(proposals) == 4
    assert proposals[:2] == ["Velanoxet did nothing.", "Velanoxet did nothing."]
    assert (
        proposals[2]
        == "Velanoxet did not significantly reduce nocturnal hypoglycaemia in adults with type 2 diabetes."
    )


def test_the_teacher_flag_chooses_the_goal_that_reads_a_classifier_folder():
    from scicon.evolve.assembly import validated_settings
    from scicon.evolve.pipeline import with_teacher
    from tests.evolve_helpers import shared

    params = with_teacher(evolve_params(**PAPER_PARTS), "models/student")
    assert params.goal == "classifier"
    goal = validated_settings(params, shared(THRESHOLDS))[("goal", "classifier")]
    assert goal.model == "models/student" and goal.contradiction_label == "contradiction"


def test_evolve_with_no_pair_of_its_kinds_stops_naming_what_the_file_holds_and_what_to_set(tmp_path):
    from scicon.errors import NoWorkError
    from scicon.evolve.pipeline import run_evolve

    conclusion_pairs = [pair.model_copy(update={"kind": PairKind.CONCLUSION_CONCLUSION}) for pair in PAIRS]
    params = evolve_params(pair_kinds=["result_conclusion"])
    journal = tmp_path / "trace.jsonl"
    with pytest.raises(NoWorkError, match=r"pair_kinds \[result_conclusion\].*conclusion_conclusion 6"):
        run_evolve(conclusion_pairs, [], params, THRESHOLDS, None, journal=journal)
    with pytest.raises(NoWorkError, match="holds no pair"):
        run_evolve([], [], params, THRESHOLDS, None, journal=journal)
    assert not journal.exists()
