"""The evolve stage end to end with the real embedded backbone, on a few pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from scicon.io import read_jsonl, write_jsonl
from scicon.records.corpus import Abstract, Role, Sentence
from scicon.records.evolve import MutatedPair, PairTrace
from scicon.records.pairs import Pair, PairKind
from stages import evolve

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow

ABSTRACT = Abstract(
    pmid="T1",
    sentences=(
        Sentence(role=Role.METHODS, text="Adults with atrial fibrillation received velanoxet or warfarin."),
        Sentence(
            role=Role.RESULTS, text="Major bleeding occurred in 4% of velanoxet and 9% of warfarin patients."
        ),
        Sentence(role=Role.CONCLUSIONS, text="Velanoxet reduced major bleeding compared with warfarin."),
        Sentence(role=Role.CONCLUSIONS, text="Velanoxet was well tolerated by older adults."),
    ),
    origin="test",
)
PAIRS = [
    Pair(
        pair_id="T1-rc-1-2", pmid="T1", kind=PairKind.RESULT_CONCLUSION,
        sentence1=ABSTRACT.sentences[1].text, sentence2=ABSTRACT.sentences[2].text,
        role1=Role.RESULTS, role2=Role.CONCLUSIONS, index1=1, index2=2, selector="tfidf", selector_score=0.5,
    ),
    Pair(
        pair_id="T1-cc-2-3", pmid="T1", kind=PairKind.CONCLUSION_CONCLUSION,
        sentence1=ABSTRACT.sentences[2].text, sentence2=ABSTRACT.sentences[3].text,
        role1=Role.CONCLUSIONS, role2=Role.CONCLUSIONS, index1=2, index2=3,
    ),
]  # fmt: skip


def test_evolve_stage_runs_on_the_embedded_model(tmp_path, cache_dir):
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    # the embedded LLM rewrites and teaches; the filters that train on a corpus need more than one abstract
    params["evolve"].update(
        transformation="llm", goal="llm", similarity="off", claim="off",
        pair_kinds=["result_conclusion", "conclusion_conclusion"],
    )  # fmt: skip
    params["evolve"]["settings"]["search"]["evolutionary"] = dict(
        population_size=2, candidates_per_mutation=2, max_iterations=2
    )
    # the 135M model gives yes/no little mass: keep its answers to check them
    params["evolve"]["settings"]["goal"]["llm"]["min_mass"] = 0.0
    params["evolve"]["settings"]["transformation"]["llm"]["max_new_tokens"] = 40
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    write_jsonl(tmp_path / "abstracts.jsonl", [ABSTRACT])
    outputs = {
        "accepted": tmp_path / "out/accepted.jsonl",
        "trace": tmp_path / "out/trace.jsonl",
        "success_plot": tmp_path / "out/success.json",
        "metrics": tmp_path / "out/evolve.json",
    }
    argv = [
        "--params", str(tmp_path / "params.yaml"),
        "--pairs", str(tmp_path / "pairs.jsonl"),
        "--abstracts", str(tmp_path / "abstracts.jsonl"),
        "--accepted", str(outputs["accepted"]),
        "--trace", str(outputs["trace"]),
        "--success-plot", str(outputs["success_plot"]),
        "--metrics", str(outputs["metrics"].with_name("headline.json")),
        "--figures", str(outputs["metrics"]),
    ]  # fmt: skip
    evolve.main(evolve.parser().parse_args(argv))

    traces = list(read_jsonl(outputs["trace"], PairTrace))
    assert [t.pair_id for t in traces] == ["T1-rc-1-2", "T1-cc-2-3"]
    for trace in traces:
        assert trace.status in ("succeeded", "failed", "skipped")
        assert trace.backbone_calls > 0 and trace.original_confidence is not None
        if trace.status != "skipped":
            assert 1 <= len(trace.generations) <= 2
            assert all(len(m.candidates) == 2 for g in trace.generations for m in g.members)
    accepted = list(read_jsonl(outputs["accepted"], MutatedPair))
    assert len(accepted) == sum(t.status == "succeeded" for t in traces)
    metrics = json.loads(outputs["metrics"].read_text())
    assert metrics["pairs_tried"] == 2 and metrics["recipe"] == "custom"
    assert metrics["backbone"]["calls_computed"] > 0

    # the same run again: nothing is searched again and no model call is paid
    evolve.main(evolve.parser().parse_args(argv))
    again = json.loads(outputs["metrics"].read_text())
    assert again["resumed_pairs"] == 2
    assert again.get("backbone", {}).get("calls_computed", 0) == 0
    assert list(read_jsonl(outputs["trace"], PairTrace)) == traces
