"""The evaluate stage end to end on fixtures: two classifier folders, baselines, NLI4CT, outputs."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import yaml

from scicon.io import write_jsonl
from scicon.records.dataset import Example
from stages.evaluate import main, parser
from tests.params_defaults import section_values
from tests.tiny_models import save_tiny_bert, save_tiny_classifier


def test_the_stage_compares_classifiers_and_baselines_and_writes_every_output(
    fixtures, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    base = save_tiny_bert(tmp_path / "tiny-bert")
    save_tiny_classifier(base, Path("models/scicon-classifier"), seed=1)
    save_tiny_classifier(base, Path("elsewhere/snomed"), seed=2)
    write_jsonl(
        Path("data/scicon/train.jsonl"),
        [
            Example(
                example_id="t",
                pmid="1",
                sentence1="A rose.",
                sentence2="A fell.",
                label=1,
                generator="x",
                split="train",
            )
        ],
    )
    bench = fixtures / "benchmarks"
    evaluate = section_values("evaluate") | {
        "benchmarks": {
            "mednli": {
                "kind": "mednli",
                "path": str(bench / "mli_test_v1.jsonl"),
                "options": {"specialty": None, "keywords": None},
            },
            "nli4ct_dev": {"kind": "nli4ct", "path": str(bench / "nli4ct"), "options": {"split": "dev"}},
            "healthver_dev": {
                "kind": "healthver",
                "path": "absent.csv",
                "options": {"contradiction": ["Refutes"]},
            },
            # a hard variant of the gold pairs of `gold`, which are not in evaluate.benchmarks
            "hard_gold": {"kind": "hard", "path": None, "options": {"base": "gold", "negation_words": None}},
        },
        "classifiers": {
            "scicon": "models/scicon-classifier",
            "snomed": str(tmp_path / "elsewhere" / "snomed"),
        },
        "zero_shot": False,
        "baselines": {
            "hypothesis_only": {"folds": 2},
            "overlap": {},
            "embedding_cosine": {"model": str(base)},
            "negation_cue": {},
        },
        "bootstrap_resamples": 100,
    }
    gold = section_values("gold") | {"path": str(fixtures / "labelled" / "gold" / "gold_dev.jsonl")}
    params = {"evaluate": evaluate, "gold": gold, "target": 0.4}
    Path("params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    main(
        parser().parse_args(
            [
                "--scicon",
                "data/scicon",
                "--metrics",
                "metrics/evaluate.json",
                "--figures",
                "reports/evaluate.json",
                "--plots",
                "plots/roc",
                "--scores",
                "plots/scores",
            ]
        )
    )

    headline = json.loads(Path("metrics/evaluate.json").read_text())  # what DVC shows
    assert headline["benchmarks_evaluated"] == 4 and "healthver_dev" not in headline
    assert set(headline["gold"]) >= {"scicon_roc_auc", "best_baseline_roc_auc"}
    assert all(key.endswith(("_roc_auc", "_precision_at_target")) for key in headline["gold"])
    assert "scicon_precision_at_target" in headline["gold"]
    metrics = json.loads(Path("reports/evaluate.json").read_text())
    assert metrics["benchmarks_evaluated"] == 4 and metrics["healthver_dev"]["status"] == "skipped"
    # the gold pairs: every scorer judged, the models at `target`, the baselines by ROC-AUC only
    judge = metrics["gold"]["judge"]
    assert metrics["gold"]["examples"] == 8 and {"scicon", "snomed", "negation_cue"} <= set(judge)
    assert judge["scicon"]["at_target"]["target"] == 0.4 and "by_operator" in judge["scicon"]
    assert set(judge["negation_cue"]) == {"overall", "within_rule_negatives"}
    assert "judge" not in metrics["nli4ct_dev"]  # its pairs do not say how they were made
    hard_gold = metrics["hard_gold"]  # negation words removed: no judge breakdown, the same pairs
    assert hard_gold["status"] == "evaluated" and hard_gold["examples"] == 8 and "judge" not in hard_gold
    hard_scores = Path("plots/scores/hard_gold.csv").read_text().splitlines()
    gold_scores = Path("plots/scores/gold.csv").read_text().splitlines()
    assert [row.split(",")[:2] for row in hard_scores] == [row.split(",")[:2] for row in gold_scores]
    nli4ct = metrics["nli4ct_dev"]
    assert nli4ct["examples"] == 4 and set(nli4ct["models"]) == {"scicon", "snomed"}
    assert set(nli4ct["baselines"]) == {
        "hypothesis_only",
        "overlap",
        "overlap_negated",
        "embedding_cosine",
        "embedding_cosine_negated",
        "negation_cue",
    }
    assert "scicon_vs_snomed" in nli4ct["paired"] and "snomed_vs_best_baseline" in nli4ct["paired"]
    # the best baseline is the strongest one, each model is compared with it, the verdict says how
    best, best_auc = nli4ct["best_baseline"], nli4ct["best_baseline_roc_auc"]
    baseline_aucs = {name: entry["roc_auc"] for name, entry in nli4ct["baselines"].items()}
    assert best_auc == baseline_aucs[best] == max(baseline_aucs.values())
    sentences = nli4ct["verdict"].split("; ")
    for model, sentence in zip(("scicon", "snomed"), sentences, strict=True):
        auc = nli4ct["models"][model]["roc_auc"]
        assert nli4ct[f"baseline_beats_{model}"] is (best_auc >= auc)
        assert sentence.startswith(
            f"trivial baseline {best} ({best_auc:.3f}) scores at least as high as {model} ({auc:.3f})"
            if best_auc >= auc
            else f"{model} ({auc:.3f}) above {best} ({best_auc:.3f}), "
        )

    with open("plots/scores/nli4ct_dev.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == [
        "key",
        "label",
        "scicon",
        "snomed",
        "hypothesis_only",
        "overlap",
        "overlap_negated",
        "embedding_cosine",
        "embedding_cosine_negated",
        "negation_cue",
    ]
    assert rows[0]["key"] == "dev:3f1c2a10-0001-4a6e-9d1e-000000000001" and rows[1]["label"] == "1"
    assert sorted(os.listdir("plots/roc")) == [
        f"{benchmark}.{scorer}.csv"
        for benchmark in ("gold", "hard_gold", "mednli", "nli4ct_dev")
        for scorer in ("best_baseline", "scicon", "snomed")
    ]
