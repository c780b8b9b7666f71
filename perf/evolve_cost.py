"""Benchmark of the evolve stage's cost discipline, in one run on this machine.

In a temporary copy of the project, with an empty call cache:

1. `dvc repro evolve` on the first N pairs of a corpus with the embedded defaults,
   or with the parameters given by ``--set`` (the full run, paying for every model
   call it makes);
2. from that run's trace, the backbone calls a naive implementation would have made
   for the same search: every candidate sent to every backbone score, no
   deduplication, no cache (and every rewrite generated);
3. `dvc exp run evolve -S sim=0.7` afterwards (the threshold rerun).

Prints calls per pair and per accepted pair for both implementations and their
ratio, split into rewrites (``generate``) and yes/no scores (``yes_no``), and the
rerun's wall time as a fraction of the full run's.

    python -m perf.evolve_cost --corpus /abs/path/pubmedqa_rct.txt --pairs 200
    # the paper's filters, both answered by the backbone:
    python -m perf.evolve_cost --corpus ... --set evolve.similarity=llm --set evolve.claim=llm
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from scicon.evolve.params import EvolveParams
from scicon.io import read_jsonl
from scicon.profiles import apply_overrides, parse_assignments
from scicon.records.evolve import PairTrace
from scicon.transformations.mixed import share_out

REPO = Path(__file__).resolve().parent.parent


def copy_project(target: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, check=True, capture_output=True, text=True,
    ).stdout.splitlines()  # fmt: skip
    for name in listed:
        source = REPO / name
        if (
            source.is_file()
            and name != "dvc.lock"
            and not name.startswith(("metrics/", "reports/", "plots/"))
        ):
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def naive_backbone_calls(traces: list[PairTrace], params: EvolveParams) -> dict[str, int]:
    """What the search would cost with every backbone score on every candidate and no reuse.

    Split like the stage's own accounting: ``generate`` (rewrites) and ``yes_no`` (scores).
    """
    goal = params.goal == "llm"  # CLASSIFY; a sequence-classification goal is no backbone call
    backbone_scores = goal + (params.similarity == "llm") + (params.claim == "llm")
    rewrites = scores = 0
    for trace in traces:
        scores += goal and trace.original_confidence is not None  # the skip check of the original pair
        for generation in trace.generations:
            for member in generation.members:
                rewrites += llm_rewrites(len(member.candidates), params)  # every rewrite generated
                proposed = sum(c.text is not None for c in member.candidates)
                scores += backbone_scores * proposed
    return {"generate": rewrites, "yes_no": scores}


def llm_rewrites(candidates: int, params: EvolveParams) -> int:
    """Of one member's candidates, those the backbone writes (as the mixed transformation shares out)."""
    if params.transformation == "llm":
        return candidates
    if params.transformation == "mixed":
        parts = params.settings["transformation"]["mixed"]["parts"]
        total = sum(parts.values())
        counts = share_out(candidates, [share / total for share in parts.values()])
        return sum(count for name, count in zip(parts, counts, strict=True) if name == "llm")
    return 0


def timed(command: list[str], cwd: Path, env: dict) -> tuple[float, str]:
    """Wall seconds of ``command`` and its standard output; a failure stops the benchmark."""
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return time.perf_counter() - started, result.stdout


def benchmark_environment(folder: Path) -> dict:
    """The environment of a benchmark run: this interpreter's tools first, an empty call
    cache under ``folder`` (the run pays for every model call) and a git identity."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env["SCICON_CACHE_DIR"] = str(folder / "cache")
    env.update(GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@localhost",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@localhost")  # fmt: skip
    return env


def commit_all(project: Path, env: dict, message: str) -> None:
    """Commit everything in ``project``, making it a git repository first if it is none."""
    if not (project / ".git").exists():
        subprocess.run(["git", "init", "-q"], cwd=project, env=env, check=True)
    for command in (["git", "add", "-A"], ["git", "commit", "-qm", message]):
        subprocess.run(command, cwd=project, env=env, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus", required=True, help="absolute path of a corpus file ingest reads (RCT text, XML, JSON)"
    )
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="change a parameter of the run, e.g. evolve.similarity=llm (repeatable)",
    )  # fmt: skip
    parser.add_argument("--keep", help="keep the project copy in this folder")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="scicon-evolve-cost-"))
    project = folder / "project"
    copy_project(project)
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["ingest"]["source"] = str(Path(args.corpus).resolve())
    params["evolve"]["max_pairs"] = args.pairs
    params = apply_overrides(params, parse_assignments(args.overrides), "--set")
    (project / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    env = benchmark_environment(folder)
    commit_all(project, env, "benchmark copy")

    dvc = [sys.executable, "-m", "dvc"]
    timed([*dvc, "repro", "pairs"], project, env)  # upstream stages are not part of the measurement
    full_seconds, _ = timed([*dvc, "repro", "evolve"], project, env)
    metrics = json.loads((project / "reports/evolve.json").read_text())
    traces = list(read_jsonl(project / "data/evolve/trace.jsonl", PairTrace))
    evolve = EvolveParams.model_validate(params["evolve"])
    ours = metrics["backbone"]["calls_computed"]
    naive_by_operation = naive_backbone_calls(traces, evolve)
    naive = sum(naive_by_operation.values())
    rerun_seconds, _ = timed([*dvc, "exp", "run", "evolve", "-S", "sim=0.7"], project, env)
    rerun = json.loads((project / "reports/evolve.json").read_text())

    accepted = metrics["succeeded"]
    figures = {
        "settings": " ".join(args.overrides) or "params.yaml defaults",
        "pairs": len(traces),
        "accepted": accepted,
        "backbone_calls_this_implementation": ours,
        "backbone_calls_naive": naive,
        "calls_per_pair_this_implementation": round(ours / len(traces), 1),
        "calls_per_pair_naive": round(naive / len(traces), 1),
        "calls_per_accepted_pair_this_implementation": round(ours / accepted, 1) if accepted else None,
        "calls_per_accepted_pair_naive": round(naive / accepted, 1) if accepted else None,
        "ratio_naive_vs_this": round(naive / ours, 2) if ours else None,
        **{
            f"{operation}_calls_this_vs_naive": f"{metrics['backbone'].get(f'{operation}_computed', 0)}"
            f" vs {count}"
            for operation, count in naive_by_operation.items()
        },
        "full_run_seconds": round(full_seconds, 1),
        "rerun_sim_0.7_seconds": round(rerun_seconds, 1),
        "rerun_fraction_of_full_run": round(rerun_seconds / full_seconds, 3),
        "rerun_calls_computed": rerun["backbone"]["calls_computed"],
        "rerun_cache_hit_rate": rerun["backbone"]["cache_hit_rate"],
        "attack_success_rate": metrics["attack_success_rate"],
        "attack_success_rate_after_rerun": rerun["attack_success_rate"],
    }
    width = max(map(len, figures))
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
