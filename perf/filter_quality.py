"""How well the fitted filters mean what the paper means, measured on real data.

Same topic (``filter_models.topic_model``, threshold ``sim``), fitted on the
corpus:

* held-out calibration quality (ROC-AUC, Brier, log loss, ECE) and what ``sim`` passes
  and rejects: same-abstract pairs kept, different-abstract pairs (random and lexically
  close) rejected; the ROC curve and the operating points where 90% pass or 90% reject;
* the entailing pairs the pairs stage makes from held-out abstracts, scored as the
  evolve filter scores them (sentence1 against sentence2): how many pass ``sim``;
* meta-text (``perf/meta_texts.txt``: the examples of issue 14 and lines of real
  SmolLM2 answers) scored against sentence1 of those pairs: how many pass ``sim``.

Claim (``filter_models.claim_model``, threshold ``claim``):

* held-out quality against the training labels, and the pass rate of each role at
  ``claim`` (original CONCLUSIONS sentences above all);
* against expert claim labels (``--claims-test``): ROC-AUC, precision and recall at
  ``claim``, and the threshold that keeps 90% recall — for the model learnt from the
  corpus' roles and, with ``--claims-train``, for one learnt from labelled claims;
* the meta-text lines: their claim probabilities, and which the rewrite parser
  already drops (:func:`scicon.prompts.meta_text_kind`).

Fitted models are cached (``$SCICON_CACHE_DIR/filters``), so a second run only scores.

    python -m perf.filter_quality --corpus /abs/path/pubmedqa_rct.txt \\
        --claims-test /abs/path/claims/test_labels.json --claims-train /abs/path/claims/train_labels.json \\
        --roc-csv plots/filters/topic_roc.csv --json /tmp/filter_quality.json
    # another setting, e.g. isotonic calibration or embedding features:
    python -m perf.filter_quality --corpus ... \\
        --set filter_models.topic_model.method=isotonic \\
        --set filter_models.claim_model.features=embedding
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import random
from pathlib import Path

import numpy as np
import yaml

from scicon.corpus.readers import read_corpus
from scicon.fitted.base import is_held_out
from scicon.fitted.claim_examples import read_labelled_claims
from scicon.fitted.claim_model import ClaimModelSettings, fit_claim_model
from scicon.fitted.topic_model import TopicModelSettings, fit_topic_model
from scicon.pairing import build_pairs, make_cheap_selector
from scicon.pairing.params import PairsParams
from scicon.params import Thresholds, read_params_file
from scicon.prompts import meta_text_kind
from scicon.records.base import Skip
from scicon.records.corpus import Abstract

REPO = Path(__file__).resolve().parent.parent
META_TEXTS = Path(__file__).resolve().parent / "meta_texts.txt"
SWEEP = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def load_params(path: Path, overrides: list[str]) -> dict:
    params = read_params_file(path)
    for override in overrides:
        key, _, value = override.partition("=")
        *parents, last = key.split(".")
        target = params
        for part in parents:
            target = target[part]
        target[last] = yaml.safe_load(value)
    return params


def read_abstracts(corpus: Path) -> list[Abstract]:
    return [
        Abstract(pmid=item.pmid, sentences=tuple(item.sentences), origin=item.origin)
        for item in read_corpus(corpus)
        if not isinstance(item, Skip) and item.sentences
    ]


def meta_texts() -> list[str]:
    lines = META_TEXTS.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def operating_points(curve: list[dict]) -> dict:
    """From the ROC curve: the best reject rate with 90% passing, the best pass rate with 90%
    rejected, and the point where both are equal."""
    pass_90 = next(point for point in curve if point["tpr"] >= 0.9)
    reject_90 = [point for point in curve if point["fpr"] <= 0.1][-1]
    balanced = max(curve, key=lambda point: min(point["tpr"], 1 - point["fpr"]))

    def described(point: dict) -> dict:
        return {"sim": point["threshold"], "pass": point["tpr"], "reject": round(1 - point["fpr"], 4)}

    return {
        "pass_0_9": described(pass_90),
        "reject_0_9": described(reject_90),
        "balanced": described(balanced),
    }


def topic_report(abstracts: list[Abstract], params: dict, sim: float, roc_csv: Path | None) -> dict:
    settings = TopicModelSettings.model_validate(params["filter_models"]["topic_model"])
    model = fit_topic_model(abstracts, settings)
    curve = model.roc_curve()
    if roc_csv is not None:
        roc_csv.parent.mkdir(parents=True, exist_ok=True)
        with open(roc_csv, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=["threshold", "fpr", "tpr"])
            writer.writeheader()
            writer.writerows(curve)
    report = {"held_out": model.quality(sim), "operating_points": operating_points(curve)}
    # the score before calibration, (1 + cosine) / 2 >= sim, is the calibrated score above this
    uncalibrated = model.calibrate([sim])[0]
    report["uncalibrated_cosine_score_at_sim"] = {
        key: value for key, value in model.quality(uncalibrated).items() if key.endswith("_rate")
    }

    held_out = [a for a in abstracts if is_held_out(settings.seed, a.pmid, settings.held_out_fraction)]
    pairs_params = PairsParams.model_validate(params["pairs"])
    pairs = build_pairs(held_out, pairs_params, make_cheap_selector(pairs_params.result_selector)).pairs
    same = np.asarray(model.probabilities([p.sentence1 for p in pairs], [p.sentence2 for p in pairs]))
    by_kind = {
        kind: round(float((same[[p.kind == kind for p in pairs]] >= sim).mean()), 4)
        for kind in sorted({p.kind.value for p in pairs})
    }
    report["entailing_pairs"] = {
        "pairs": len(pairs),
        "pass_rate": round(float((same >= sim).mean()), 4),
        "uncalibrated_pass_rate": round(float((same >= uncalibrated).mean()), 4),
    } | {f"{kind}_pass_rate": rate for kind, rate in by_kind.items()}

    # each meta-text line against sentence1 of (up to) 50 of those pairs
    references = [p.sentence1 for p in random.Random(0).sample(pairs, min(50, len(pairs)))]
    lines = meta_texts()
    scores = np.asarray(
        model.probabilities([r for _ in lines for r in references], [m for m in lines for _ in references])
    ).reshape(len(lines), len(references))
    report["sweep"] = [
        {
            "sim": threshold,
            "same_topic_pass": quality["same_topic_pass_rate"],
            "random_abstract_reject": quality["random_abstract_reject_rate"],
            "lexical_neighbour_reject": quality["lexical_neighbour_reject_rate"],
            "entailing_pairs_pass": round(float((same >= threshold).mean()), 4),
            "meta_text_pass": round(float((scores >= threshold).mean()), 4),
        }
        for threshold in SWEEP
        for quality in [model.quality(threshold)]
    ]
    report["meta_text"] = {
        "lines": len(lines),
        "references": len(references),
        "pass_rate": round(float((scores >= sim).mean()), 4),
        "uncalibrated_pass_rate": round(float((scores >= uncalibrated).mean()), 4),
        "mean_probability": round(float(scores.mean()), 4),
        "max_probability": round(float(scores.max()), 4),
        "highest": sorted(
            ((round(float(row.mean()), 4), line) for line, row in zip(lines, scores, strict=True)),
            reverse=True,
        )[:5],
    }
    return report


def claim_report(
    abstracts: list[Abstract], params: dict, claim: float, test: Path | None, train: Path | None
) -> dict:
    settings = ClaimModelSettings.model_validate(params["filter_models"]["claim_model"])
    expert = read_labelled_claims(test) if test else None
    report = {}
    variants = {"roles": settings}
    if train is not None:
        variants["labelled_file"] = settings.model_copy(update={"labelled_file": str(train)})
    lines = meta_texts()
    for name, chosen in variants.items():
        model = fit_claim_model(abstracts, chosen)
        quality = model.quality(claim)
        entry = {"held_out": quality}
        if expert is not None:
            entry["expert_test"] = model.evaluate(expert, claim)
        probabilities = model.probabilities(lines)
        expert_scores = np.asarray(model.probabilities([e.text for e in expert])) if expert else None
        entry["sweep"] = []
        for threshold in SWEEP:
            row = {"claim": threshold} | {
                f"{role.lower()}_pass": rate
                for role, rate in model.quality(threshold)["pass_rate_by_role"].items()
            }
            row["meta_text_pass"] = round(float(np.mean([p >= threshold for p in probabilities])), 4)
            if expert_scores is not None:
                labels = np.asarray([e.claim for e in expert])
                kept = expert_scores >= threshold
                row["expert_precision"] = round(float(labels[kept].mean()), 4) if kept.any() else None
                row["expert_recall"] = round(float(kept[labels].mean()), 4)
            entry["sweep"].append(row)
        entry["meta_text"] = {
            "lines": len(lines),
            "pass_rate": round(float(np.mean([p >= claim for p in probabilities])), 4),
            "max_probability": round(max(probabilities), 4),
            "scores": sorted(
                (
                    (round(p, 4), bool(meta_text_kind(line)), line)
                    for p, line in zip(probabilities, lines, strict=True)
                ),
                reverse=True,
            ),
        }
        report[name] = entry
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus", required=True, type=Path, help="a corpus file ingest reads (RCT text, XML, JSON)"
    )
    parser.add_argument("--claims-test", type=Path, help="expert claim labels to evaluate against")
    parser.add_argument("--claims-train", type=Path, help="labelled claims to train the file option on")
    parser.add_argument("--params", type=Path, default=REPO / "params.yaml")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a param")
    parser.add_argument("--roc-csv", type=Path, help="write the same-topic ROC curve here")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--only", choices=["topic", "claim"], help="measure one filter")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    params = load_params(args.params, args.set)
    thresholds = Thresholds.model_validate({key: params[key] for key in ("sim", "claim", "target")})
    abstracts = read_abstracts(args.corpus)
    figures: dict = {"corpus": str(args.corpus), "abstracts": len(abstracts), "set": args.set}
    if args.only != "claim":
        figures["topic"] = topic_report(abstracts, params, thresholds.sim, args.roc_csv)
    if args.only != "topic":
        figures["claim"] = claim_report(
            abstracts, params, thresholds.claim, args.claims_test, args.claims_train
        )
    text = json.dumps(figures, indent=2, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
