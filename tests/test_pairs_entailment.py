"""Pairs chosen by evidence: the entailment selector and the P(entailment) filter.

The judge here is a scorer over fixed probabilities (the scorer protocol the pairs stage
uses), so the choices are exact; tests/test_entailment.py trains a real judge.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
import yaml

from scicon.errors import NoWorkError, ParamsError
from scicon.pairing import build_pairs, make_cheap_selector, make_selector
from scicon.pairing.entailment import BELOW_MIN_ENTAILMENT
from scicon.pairing.params import PairsParams
from scicon.records.pairs import PairKind
from tests.builders import abstract
from tests.params_defaults import PARAMS_FILE, section
from tests.test_pairs import TRIAL

REPO = Path(__file__).resolve().parent.parent
BLEEDING_RESULT = TRIAL.sentences[2].text
STROKE_RESULT = TRIAL.sentences[3].text
AGE_RESULT = TRIAL.sentences[1].text
BLEEDING_CONCLUSION = TRIAL.sentences[4].text
STROKE_CONCLUSION = TRIAL.sentences[5].text
OLDER_ADULTS_CONCLUSION = TRIAL.sentences[6].text


class FixedScores:
    """A judge over fixed P(entailment) per (sentence1, sentence2); any other pair scores ``default``."""

    def __init__(self, scores: dict[tuple[str, str], float], default: float = 0.1) -> None:
        self.scores = scores
        self.default = default
        self.calls: list[int] = []  # pairs per call: the selector sends one batch

    def entailment_probabilities(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        self.calls.append(len(pairs))
        return [self.scores.get(tuple(pair), self.default) for pair in pairs]


def params(**overrides) -> PairsParams:
    values = dict(kinds=["conclusion_conclusion", "result_conclusion"], min_words=4)
    values.update(overrides)
    return section("pairs", PairsParams, **values)


def test_the_entailment_selector_keeps_the_result_the_judge_believes_in_one_batched_call():
    judge = FixedScores(
        {
            # the age result is the judge's choice for "older adults", where TF-IDF shares no word
            (AGE_RESULT, OLDER_ADULTS_CONCLUSION): 0.7,
            (BLEEDING_RESULT, BLEEDING_CONCLUSION): 0.9,
            # a tie: the earlier sentence wins
            (BLEEDING_RESULT, STROKE_CONCLUSION): 0.6,
            (STROKE_RESULT, STROKE_CONCLUSION): 0.6,
        }
    )
    selector = make_cheap_selector("entailment", judge)
    result = build_pairs([TRIAL], params(kinds=["result_conclusion"]), selector)
    chosen = {pair.index2: (pair.index1, pair.selector_score) for pair in result.pairs}
    assert chosen == {4: (2, 0.9), 5: (2, 0.6)}  # max_result_pairs_per_abstract: 2 conclusions
    assert judge.calls == [6]  # three RESULTS sentences for each of two conclusions, together
    assert all(pair.selector == "entailment" for pair in result.pairs)
    assert result.metrics["result_selector"] == "entailment"
    # without the filter or a judge handed to build_pairs, no pair carries a score
    assert all(pair.entailment is None for pair in result.pairs) and result.metrics["entailment"] is None

    capped = build_pairs(
        [TRIAL], params(kinds=["result_conclusion"], max_result_pairs_per_abstract=None), selector
    )
    assert {p.index2: p.index1 for p in capped.pairs}[6] == 1


def test_a_conclusion_without_results_is_skipped_and_the_judge_is_not_asked():
    judge = FixedScores({})
    no_result = abstract("P3", ("CONCLUSIONS", "Honey syrup relieved night-time cough in children."))
    with pytest.raises(NoWorkError, match="no_results_sentence 1"):  # and so no pair at all
        build_pairs([no_result], params(), make_cheap_selector("entailment", judge))
    assert judge.calls == []


def test_pairs_below_min_entailment_are_skipped_with_their_score_and_counted_per_kind():
    judge = FixedScores(
        {
            (BLEEDING_RESULT, BLEEDING_CONCLUSION): 0.9,
            (STROKE_RESULT, STROKE_CONCLUSION): 0.4,
            (BLEEDING_CONCLUSION, STROKE_CONCLUSION): 0.2,
        }
    )
    result = build_pairs(
        [TRIAL], params(min_entailment=0.5), make_cheap_selector("tfidf"), entailment_scorer=judge
    )
    assert [(p.pair_id, p.entailment) for p in result.pairs] == [("P1-rc-2-4", 0.9)]
    dropped = [s for s in result.skipped if s.reason == BELOW_MIN_ENTAILMENT]
    assert {s.where for s in dropped} == {"P1-cc-4-5", "P1-rc-3-5"}
    detail = next(s.detail for s in dropped if s.where == "P1-rc-3-5")
    assert detail == "P(entailment) 0.4000 < pairs.min_entailment 0.5"
    assert result.metrics["skipped"][BELOW_MIN_ENTAILMENT] == 2
    assert result.metrics["entailment"]["min_entailment"] == 0.5
    assert result.metrics["entailment"]["per_kind"] == {
        PairKind.CONCLUSION_CONCLUSION.value: {"scored": 1, "kept": 0, "dropped": 1},
        PairKind.RESULT_CONCLUSION.value: {"scored": 2, "kept": 1, "dropped": 1},
    }
    assert result.metrics["pairs"] == 1
    # a threshold that drops every pair stops the stage, naming it
    with pytest.raises(NoWorkError, match="pairs.min_entailment 0.95 dropped them: lower it"):
        build_pairs(
            [TRIAL], params(min_entailment=0.95), make_cheap_selector("tfidf"), entailment_scorer=judge
        )


def test_a_judge_without_a_threshold_scores_every_pair_and_drops_none():
    judge = FixedScores({(BLEEDING_RESULT, BLEEDING_CONCLUSION): 0.9})
    result = build_pairs([TRIAL], params(), make_cheap_selector("tfidf"), entailment_scorer=judge)
    assert len(result.pairs) == 3 and all(p.entailment is not None for p in result.pairs)
    assert result.metrics["entailment"]["per_kind"][PairKind.RESULT_CONCLUSION.value]["dropped"] == 0


def test_the_judge_is_required_where_params_ask_for_it():
    with pytest.raises(ParamsError, match="entailment result selector needs the entailment judge"):
        make_selector(params(result_selector="entailment"))
    with pytest.raises(ParamsError, match="pairs.min_entailment is set"):
        build_pairs([TRIAL], params(min_entailment=0.5), make_cheap_selector("tfidf"))
    assert params(result_selector="entailment").uses_entailment
    assert params(min_entailment=0.5).uses_entailment and not params().uses_entailment


def test_the_stage_with_tfidf_and_no_filter_loads_no_judge_and_no_torch(tmp_path):
    values = yaml.safe_load(PARAMS_FILE.read_text())
    values["pairs"].update(result_selector="tfidf", min_entailment=None, entailment_model="no/such/folder")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(values))
    (tmp_path / "abstracts.jsonl").write_text(TRIAL.model_dump_json() + "\n")
    script = (
        "import sys\n"
        "from stages import pairs\n"
        "pairs.run_stage(pairs.main, pairs.parser(), sys.argv[1:])\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    argv = [
        "--params", str(tmp_path / "params.yaml"),
        "--abstracts", str(tmp_path / "abstracts.jsonl"),
        "--pairs", str(tmp_path / "pairs.jsonl"),
        "--skipped", str(tmp_path / "skipped.jsonl"),
        "--metrics", str(tmp_path / "headline.json"),
        "--figures", str(tmp_path / "pairs.json"),
    ]  # fmt: skip
    done = subprocess.run([sys.executable, "-c", script, *argv], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "pairs.json").read_text())["entailment"] is None

    # asking for the filter with a missing folder names the folder and the parameter
    values["pairs"]["min_entailment"] = 0.5
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(values))
    done = subprocess.run([sys.executable, "-c", script, *argv], cwd=REPO, capture_output=True, text=True)
    assert done.returncode != 0
    assert "no/such/folder: entailment judge not found (pairs.entailment_model" in done.stderr
