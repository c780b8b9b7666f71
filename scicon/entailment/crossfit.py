"""The one judge measured out of sample: cross-fitted by abstract on the in-domain judgements.

A judge refined on the judgements has seen the abstracts it would be measured on, so its own
figures on them are in-sample. Here the judgements' abstracts are split in two halves by a hash of
the id; the second phase of the judge (``entailment.refine``) is trained twice from one shared
first phase, each time without the other half's abstracts (their judgements, and the rows of every
other refine set from the same articles, such as the direction claims), and each judge scores the
half it never learnt. Every judgement thus gets one held-out score, and the figures of
:func:`scicon.evaluate.judge.judge_figures` over them (ROC-AUC overall, within the negations and
within the other edits, by mutation type) are out of sample. Benchmarks neither half learnt (gold
dev, the direction claims of the held-out articles) are scored by both judges and reported for each
and for their mean probability.

    python -m scicon.entailment.crossfit --params params.yaml --general work/general --out work/crossfit \
        --benchmark direction_held_out

``--general`` is the first phase (the labelled NLI of ``entailment.labelled``): trained there when
the folder holds no model, reused when it does. Edits are shown as the search shows them, where the
judgements record the sentence an edit was made from.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import tempfile
from pathlib import Path

import numpy as np
import yaml

from scicon.classifier import CONTRADICTION, ContradictionClassifier
from scicon.entailment.params import EntailmentParams
from scicon.entailment.train import THREE_WAY_LABELS, THREE_WAY_READ, entailment_data, train_entailment
from scicon.evaluate.judge import auc_figures, judge_figures
from scicon.io import read_json_objects, write_json
from scicon.labelled.candidates import labelled_group
from scicon.params import load_key, load_section, lookup, read_params_file
from scicon.profiles import apply_overrides, parse_assignments
from scicon.readers.rows import NLI_LABELS
from scicon.readers.sets import GoldSpec, SetSpec, Skipped, load_sets
from scicon.records.benchmark import Benchmark
from scicon.stage import run_stage
from scicon.train.lora import finetune

log = logging.getLogger(__name__)

HALVES = ("a", "b")
JUDGEMENTS = "scicon_judgements"


def half_of(identifier: str) -> str:
    """The half an abstract's judgements belong to, by a hash of its id (the same on every machine)."""
    return HALVES[hashlib.sha256(f"crossfit:{identifier}".encode()).digest()[0] % 2]


def split_judgements(path: Path, folder: Path) -> dict[str, Path]:
    """The judgements file written as one file per half, lines unchanged."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {half: folder / f"judgements-{half}.jsonl" for half in HALVES}
    handles = {half: open(files[half], "w", encoding="utf-8") for half in HALVES}
    try:
        for _, row in read_json_objects(path):
            handles[half_of(str(row["pmid"]))].write(json.dumps(row, ensure_ascii=False) + "\n")
    finally:
        for handle in handles.values():
            handle.close()
    return files


def train_general(params: EntailmentParams, labelled_root: str | None, folder: Path) -> None:
    """The first phase alone, into ``folder``: the labelled NLI the halves' second phases start from."""
    data = entailment_data(params.model_copy(update={"refine": None}), labelled_root)
    read = tuple(NLI_LABELS.index(name) for name in THREE_WAY_READ)
    finetune(
        data.dataset.splits["train"],
        data.dataset.splits["dev"],
        params.training,
        folder,
        THREE_WAY_LABELS,
        read,
    )


def half_params(params: EntailmentParams, judgements: Path) -> EntailmentParams:
    """``params`` with the refine set of judgements read from one half's file."""
    refine = params.refine
    sets = dict(refine.labelled)
    sets[JUDGEMENTS] = sets[JUDGEMENTS].model_copy(
        update={"path": str(judgements.resolve()), "root": "repository"}
    )
    return params.model_copy(update={"refine": refine.model_copy(update={"labelled": sets})})


def train_half(
    params: EntailmentParams, labelled_root: str | None, general: Path, other: set[str], out: Path
) -> dict:
    """The second phase on one half from the shared first phase, every refine row of the other
    half's abstracts left out; its metrics."""
    data = entailment_data(params, labelled_root)
    for split, rows in data.refine.splits.items():
        kept = [e for e in rows if labelled_group(e.pmid) not in other]
        log.info(
            "crossfit: refine %s keeps %d of %d rows (the other half's abstracts left out)",
            split,
            len(kept),
            len(rows),
        )
        data.refine.splits[split] = kept
    return train_entailment(data, params, out, general_model=general).metrics


def _benchmark_figures(
    benchmarks: dict[str, Benchmark | Skipped], judges: dict[str, ContradictionClassifier], gold: GoldSpec
) -> dict:
    figures = {}
    for name, loaded in benchmarks.items():
        if isinstance(loaded, Skipped):
            figures[name] = {"status": "skipped", "reason": loaded.reason}
            continue
        pairs = [(p.sentence1, p.sentence2) for p in loaded.pairs]
        labels = np.array(loaded.labels)
        scores = {half: np.array(judge.contradiction_probabilities(pairs)) for half, judge in judges.items()}
        scores["mean"] = np.mean(list(scores.values()), axis=0)
        originals = [p.original for p in loaded.pairs]
        if any(originals) and all(judge.reads_edits for judge in judges.values()):
            # as the search reads them: each edit marked against the sentence it was made from
            marked = {
                f"{half}_edits_shown": np.array(judge.contradiction_probabilities(pairs, originals=originals))
                for half, judge in judges.items()
            }
            marked["mean_edits_shown"] = np.mean(list(marked.values()), axis=0)
            scores |= marked
        figures[name] = {
            "pairs": len(pairs),
            "contradictions": int(labels.sum()),
            **{
                who: auc_figures(labels, s, gold.bootstrap_resamples, gold.confidence_level, gold.seed)
                for who, s in scores.items()
            },
        }
    return figures


def crossfit(
    params_path: Path,
    overrides: dict,
    general: Path,
    out: Path,
    benchmarks: list[str],
    whole: bool = False,
    reuse: bool = False,
) -> dict:
    raw = read_params_file(params_path)
    raw = apply_overrides(raw, overrides)
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
        yaml.safe_dump(raw, handle)
    effective = Path(handle.name)
    try:
        return _crossfit_with(effective, general, out, benchmarks, whole, reuse)
    finally:  # the run's parameters, written for the loaders: gone however the run ends
        effective.unlink()


def _crossfit_with(
    effective: Path, general: Path, out: Path, benchmarks: list[str], whole: bool, reuse: bool
) -> dict:
    params = load_section(effective, "entailment", EntailmentParams)
    gold = load_section(effective, "gold", GoldSpec)
    target = load_key(effective, "target")
    labelled_root = load_key(effective, "labelled_root")
    if params.refine is None or JUDGEMENTS not in params.refine.labelled:
        raise SystemExit(
            f"entailment.refine.labelled.{JUDGEMENTS}: the cross-fit needs the judgements as a refine set"
        )
    # named before any training, so that a wrong --benchmark costs nothing
    benchmark_specs = _benchmark_specs(effective, benchmarks, gold)
    if not (general / "config.json").is_file():
        log.info("crossfit: training the first phase into %s", general)
        train_general(params, labelled_root, general)
    judgements = Path(params.refine.labelled[JUDGEMENTS].path)
    files = split_judgements(judgements, out / "halves")
    ids = {half: {str(row["pmid"]) for _, row in read_json_objects(files[half])} for half in HALVES}
    judges, trained = {}, {}
    for half, other in zip(HALVES, reversed(HALVES), strict=True):
        folder = out / f"judge-{half}"
        if reuse and (folder / "config.json").is_file():
            log.info("crossfit: reusing the judge of half %s in %s", half, folder)
            trained[half] = {"reused": str(folder)}
        else:
            trained[half] = train_half(
                half_params(params, files[half]), labelled_root, general, ids[other], folder
            )
        judges[half] = ContradictionClassifier(folder, CONTRADICTION)
    # every judgement scored by the judge that never learnt its abstract
    held_out = GoldSpec.model_validate({**gold.model_dump(), "path": str(judgements)})
    (loaded,) = load_sets({"judgements": held_out}).values()
    probabilities = np.empty(len(loaded.pairs))
    for half in HALVES:
        judge = judges[HALVES[1 - HALVES.index(half)]]
        members = [i for i, pair in enumerate(loaded.pairs) if half_of(pair.group) == half]
        chosen = [loaded.pairs[i] for i in members]
        probabilities[members] = judge.contradiction_probabilities(
            [(p.sentence1, p.sentence2) for p in chosen], originals=[p.original for p in chosen]
        )
    if whole:  # the judge of every judgement, from the same first phase: what the search would read
        trained["all"] = train_half(params, labelled_root, general, set(), out / "judge-all")
        judges_all = {"all": ContradictionClassifier(out / "judge-all", CONTRADICTION)}
    loaded_benchmarks = load_sets(benchmark_specs)
    report = {
        "judgements": str(judgements),
        "halves": {half: {"abstracts": len(ids[half]), "training": trained[half]} for half in HALVES},
        "held_out_judgements": judge_figures(
            loaded.pairs,
            probabilities.tolist(),
            target=target,
            resamples=gold.bootstrap_resamples,
            confidence=gold.confidence_level,
            seed=gold.seed,
        ),
        "benchmarks": _benchmark_figures(loaded_benchmarks, judges, gold),
    }
    if whole:
        report["judge_all"] = {
            "training": trained["all"],
            "benchmarks": _benchmark_figures(loaded_benchmarks, judges_all, gold),
        }
    write_json(out / "crossfit.json", report)
    return report


def _benchmark_specs(params_path: Path, names: list[str], gold: GoldSpec) -> dict[str, SetSpec]:
    benchmarks = lookup(read_params_file(params_path), "evaluate.benchmarks") or {}
    specs: dict[str, SetSpec] = {}
    if gold.path:
        specs["gold"] = gold
    for name in names:
        if name not in benchmarks:
            raise SystemExit(f"--benchmark {name}: not an entry of evaluate.benchmarks")
        specs[name] = SetSpec.model_validate(benchmarks[name])
    return specs


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(prog="python -m scicon.entailment.crossfit", description=__doc__)
    command.add_argument("--params", default="params.yaml", help="the params (entailment, gold, target)")
    command.add_argument(
        "-S", "--set", action="append", default=[], help="an override, key=value (as dvc exp run -S)"
    )
    command.add_argument(
        "--general", required=True, help="the first phase's folder: trained if empty, else reused"
    )
    command.add_argument("--out", required=True, help="folder for the halves' judges and crossfit.json")
    command.add_argument(
        "--benchmark", action="append", default=[], help="an evaluate.benchmarks entry to score"
    )
    command.add_argument(
        "--reuse",
        action="store_true",
        help="score with the halves' judges already in OUT instead of training them",
    )
    command.add_argument(
        "--whole",
        action="store_true",
        help="also train the judge of every judgement (OUT/judge-all) from the same first phase",
    )
    return command


def main(args: argparse.Namespace) -> None:
    report = crossfit(
        Path(args.params),
        parse_assignments(args.set),
        Path(args.general),
        Path(args.out),
        args.benchmark,
        whole=args.whole,
        reuse=args.reuse,
    )
    held = report["held_out_judgements"]
    print(
        json.dumps(
            {
                "within_edits": held.get("within_edits"),
                "overall": held["overall"],
                "benchmarks": report["benchmarks"],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    run_stage(main, parser())
