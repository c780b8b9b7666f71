"""The `negatives` stage end to end on a tiny fixture, and the modified-EDA generator."""

from __future__ import annotations

import json

import pytest
import yaml

from scicon.dataset import assemble_scicon
from scicon.dataset.params import BuildParams
from scicon.dataset.sources import SourcePaths
from scicon.errors import ParamsError
from scicon.io import read_jsonl, write_jsonl
from scicon.pairing import build_pairs, make_cheap_selector
from scicon.pairing.params import PairsParams
from scicon.records.base import Skip, TargetLabel
from scicon.records.corpus import Role
from scicon.records.negatives import RuleNegative
from scicon.records.pairs import Pair, PairKind
from scicon.rules.generators import build_negatives
from scicon.rules.params import NegativesParams
from stages import negatives as stage
from tests.params_defaults import section, section_values
from tests.rules_fixtures import TRIAL

# one result-conclusion and one conclusion-conclusion pair, made by the pairs stage's own code
PAIRS = build_pairs(
    [TRIAL],
    section(
        "pairs",
        PairsParams,
        kinds=["conclusion_conclusion", "result_conclusion"],
        max_conclusion_pairs_per_abstract=1,
        max_result_pairs_per_abstract=1,
        min_words=4,
    ),
    make_cheap_selector("overlap"),
).pairs


def written_pair(pmid: str, sentence1: str, sentence2: str) -> Pair:
    """A conclusion pair with sentences that are not in the fixture abstract."""
    return Pair(
        pair_id=f"{pmid}-cc-90-91",
        pmid=pmid,
        kind=PairKind.CONCLUSION_CONCLUSION,
        sentence1=sentence1,
        sentence2=sentence2,
        role1=Role.CONCLUSIONS,
        role2=Role.CONCLUSIONS,
        index1=90,
        index2=91,
    )


# no operator can touch it, and its abstract is not among the inputs
UNTOUCHABLE = written_pair("T2", "Trial registration: DEMO-7.", "Trial registration: DEMO-7.")
OPERATORS = ["negation_insert", "polarity_lexicon", "numeric_mismatch", "role_swap"]
PARAMS = {
    "generator": "operators",
    "pair_kinds": ["conclusion_conclusion", "result_conclusion"],
    "sentences": ["sentence1", "sentence2"],
    "max_per_pair": 2,
    "filters": [],  # the candidate checks: tests/test_candidates.py
    "candidates_per_sentence": 4,
    "control_ratio": 0.5,
    "seed": 5,
}


def run_stage(
    tmp_path, params: dict, pairs=PAIRS, operators=OPERATORS
) -> tuple[list[RuleNegative], list[Skip], dict]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    params_file = tmp_path / "params.yaml"
    candidates = {**section_values("candidates"), "operators": operators}
    params_file.write_text(yaml.safe_dump({"negatives": params, "candidates": candidates}))
    write_jsonl(tmp_path / "pairs.jsonl", pairs)
    write_jsonl(tmp_path / "abstracts.jsonl", [TRIAL])
    out = tmp_path / "out"
    stage.main(
        stage.parser().parse_args(
            [
                "--params",
                str(params_file),
                "--pairs",
                str(tmp_path / "pairs.jsonl"),
                "--abstracts",
                str(tmp_path / "abstracts.jsonl"),
                "--negatives",
                str(out / "negatives.jsonl"),
                "--skipped",
                str(out / "skipped.jsonl"),
                "--metrics",
                str(out / "headline.json"),
                "--figures",
                str(out / "metrics.json"),
            ]
        )
    )
    return (
        list(read_jsonl(out / "negatives.jsonl", RuleNegative)),
        list(read_jsonl(out / "skipped.jsonl", Skip)),
        json.loads((out / "metrics.json").read_text()),
    )


def test_stage_writes_negatives_paired_with_their_own_source(tmp_path):
    negatives, skipped, metrics = run_stage(tmp_path, PARAMS, PAIRS + [UNTOUCHABLE])
    assert negatives, "the fixture sentences admit several operators"
    by_pair = {p.pair_id: p for p in PAIRS}
    for negative in negatives:
        source = getattr(by_pair[negative.pair_id], negative.source)
        assert negative.premise == source and negative.hypothesis != source
        assert negative.edits and negative.rule
        expected = (
            TargetLabel.NON_CONTRADICTION
            if negative.operator == "synonym_control"
            else TargetLabel.CONTRADICTION
        )
        assert negative.label is expected
    contradictions = [n for n in negatives if n.label is TargetLabel.CONTRADICTION]
    per_source = {}
    for n in contradictions:
        per_source[(n.pair_id, n.source)] = per_source.get((n.pair_id, n.source), 0) + 1
    assert max(per_source.values()) <= PARAMS["max_per_pair"]

    assert metrics["pairs"] == 3
    assert metrics["pairs_untouched"] == 1 and metrics["pairs_untouched_share"] == pytest.approx(
        1 / 3, abs=1e-4
    )
    assert metrics["negatives"] == len(negatives)
    assert metrics["contradictions"] + metrics["controls"] == len(negatives)
    assert sum(metrics["negatives_per_operator"].values()) == len(negatives)
    assert set(metrics["pairs_transformable_share"]) == set(OPERATORS)
    assert all(0 <= v <= 1 for v in metrics["pairs_transformable_share"].values())
    assert metrics["pairs_transformable_share"]["negation_insert"] == pytest.approx(2 / 3, abs=1e-4)
    reasons = {s.reason for s in skipped}
    assert "no_operator_applies" in reasons and "abstract_missing" in reasons


def test_stage_is_deterministic_and_the_seed_matters(tmp_path):
    first = run_stage(tmp_path / "a", PARAMS)[0]
    again = run_stage(tmp_path / "b", PARAMS)[0]
    assert first == again
    other = [run_stage(tmp_path / f"s{seed}", {**PARAMS, "seed": seed})[0] for seed in (6, 7, 8)]
    assert any(o != first for o in other)


def test_no_controls_when_the_ratio_is_zero(tmp_path):
    negatives, _, metrics = run_stage(tmp_path, {**PARAMS, "control_ratio": 0})
    assert metrics["controls"] == 0 and all(n.label is TargetLabel.CONTRADICTION for n in negatives)


def test_modified_eda_prefers_antonyms_then_negation():
    params = section(
        "negatives",
        NegativesParams,
        **{**PARAMS, "generator": "modified_eda", "control_ratio": 0, "max_per_pair": 1},
    )
    no_antonym = written_pair(
        "T1", "Participants were followed up at the clinic.", "Velanoxet lowered mortality."
    )
    result = build_negatives([no_antonym], {"T1": TRIAL}, params, OPERATORS, progress=False)
    made = {n.source: (n.operator, n.hypothesis) for n in result.negatives}
    assert made == {
        "sentence1": ("negation_insert", "Participants were not followed up at the clinic."),
        "sentence2": ("eda_antonym", "Velanoxet raised mortality."),
    }
    assert result.metrics["generator"] == "modified_eda"
    assert set(result.metrics["pairs_transformable_share"]) == {"eda_antonym", "negation_insert"}


def test_unknown_operator_in_params_names_the_key(tmp_path):
    with pytest.raises(ParamsError, match="unknown candidates.operators: antonym"):
        run_stage(tmp_path, PARAMS, operators=["antonym"])


def test_bad_params_are_rejected_with_the_key():
    with pytest.raises(ValueError, match="max_per_pair"):
        section("negatives", NegativesParams, **{**PARAMS, "max_per_pair": 0})
    with pytest.raises(ValueError, match="sentences"):
        section("negatives", NegativesParams, **{**PARAMS, "sentences": ["sentence3"]})


def test_modified_eda_edits_pair_with_p1_in_cross_form(tmp_path):
    """The paper's Modified EDA row pairs each edit of P2 with P1: the build's cross form of the
    same negatives file (source sentence2 only; sentence1 edits have no cross form)."""
    eda = {**PARAMS, "generator": "modified_eda", "control_ratio": 0}
    negatives, _, _ = run_stage(tmp_path, eda)
    write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    paths = SourcePaths(
        pairs=tmp_path / "pairs.jsonl",
        evolve=tmp_path / "absent.jsonl",
        negatives=tmp_path / "out" / "negatives.jsonl",
    )
    build_params = section(
        "build",
        BuildParams,
        sources=["original", "rules_cross"],
        dev_fraction=0.0,
        test_fraction=0.0,
        hypothesis_only_baseline=False,
    )
    build = assemble_scicon(paths, build_params)
    by_pair = {p.pair_id: p for p in PAIRS}
    edits_of_p2 = {n.negative_id: n for n in negatives if n.source == "sentence2"}
    cross = [e for e in build.dataset.examples if e.generator == "rules_cross"]
    assert cross and len(cross) == len(edits_of_p2)
    for example in cross:
        negative = edits_of_p2[example.example_id.removesuffix("-rules_cross")]
        assert example.operator in ("eda_antonym", "negation_insert") and example.label == 1
        assert {example.sentence1, example.sentence2} == {
            by_pair[negative.pair_id].sentence1,
            negative.hypothesis,
        }
    skipped = build.metrics["sources"]["rules_cross"]["skipped"]
    assert skipped["made_from_sentence1"] == len(negatives) - len(edits_of_p2)
