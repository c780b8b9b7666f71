"""How much of an inference server's capacity the evolve search uses, and what a paper-scale run costs.

Three commands, each printing its figures (and writing them as JSON with ``--json``):

``utilisation``
    Runs the evolve search (the paper's settings: every part answered by the backbone,
    N_pop 4, N_candidates 5, 4 iterations) on the first N pairs of a corpus against one
    and then two simulated OpenAI-compatible servers (:mod:`perf.simulated_server`, each
    a separate process with a fixed latency and capacity). Prints achieved requests/s
    ÷ the servers' capacity, the mean number of requests in flight, the client's CPU
    seconds per 1,000 requests and the two-server speed-up. With ``--real-pairs K``, beside
    them: the first K pairs against llama.cpp's own OpenAI-compatible server running the
    embedded SmolLM2 on this machine (the share of the run it was busy).

``trace``
    Runs the same search with a real model (by default the embedded SmolLM2 in-process
    through llama.cpp; ``--base-url`` for a served one) on real pairs and writes the
    trace and the backbone's counters, prompt and generated tokens included.

``project``
    From such a trace: prompt and generated tokens per rewrite and per score call, per
    attempted and per accepted pair at the paper's settings, and the GPU-hours 100,000
    accepted pairs take at published H100 throughput.

    python -m perf.backbone_scaleout utilisation --corpus /abs/pubmedqa_rct.txt --pairs 200 --real-pairs 8
    python -m perf.backbone_scaleout trace --corpus /abs/pubmedqa_rct.txt --pairs 8 --out /tmp/trace
    python -m perf.backbone_scaleout project --out /tmp/trace
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from scicon.backbones import BackboneParams, merged_backbone_params
from scicon.backbones.llama_cpp_server import free_port, llama_cpp_server, serving
from scicon.candidates import CandidateParams
from scicon.corpus import ingest
from scicon.corpus.params import IngestParams
from scicon.evolve import pipeline
from scicon.evolve.params import EvolveParams
from scicon.evolve.recipes import PAPER
from scicon.fitted.filter_models import FilterModels
from scicon.io import read_jsonl, write_json
from scicon.pairing import build_pairs, make_cheap_selector
from scicon.pairing.params import PairsParams
from scicon.params import load_section, load_thresholds
from scicon.profiles import load_profile
from scicon.records.evolve import PairTrace
from scicon.records.pairs import Pair
from scicon.search.evolutionary import EvolutionarySettings

REPO = Path(__file__).resolve().parent.parent
PARAMS = REPO / "params.yaml"

# NVIDIA's TensorRT-LLM performance overview (H100 throughput table, 2,048 input / 128
# output tokens per request): output tokens per second.
PUBLISHED_THROUGHPUT = {
    "Llama-3.1-8B, 1x H100": {"gpus": 1, "output_tokens_per_second": 3450},
    "Llama-3.3-70B, 2x H100": {"gpus": 2, "output_tokens_per_second": 762},
}
BENCHMARK_INPUT, BENCHMARK_OUTPUT = 2048, 128
# the paper's attack success rate at its default thresholds (appendix C: 31.3%)
PAPER_SUCCESS_RATE = 0.313


def paper_evolve_params(max_iterations: int | None = None, **overrides) -> EvolveParams:
    """params.yaml's evolve section with the paper profile's evolve settings (every part answered
    by the backbone, both pair kinds), every answer kept, and ``overrides`` (``max_iterations``:
    the evolutionary search's)."""
    values = dict(load_section(PARAMS, "evolve", EvolveParams).model_dump())
    if max_iterations is not None:
        sizes = values["settings"]["search"]["evolutionary"]
        values["settings"]["search"]["evolutionary"] = {**sizes, "max_iterations": max_iterations}
    paper = load_profile("paper")
    values.update({key.removeprefix("evolve."): paper[key] for key in paper if key.startswith("evolve.")})
    values.update(max_pairs=None)
    for part in ("similarity", "claim", "goal"):
        values["settings"][part]["llm"] = {**values["settings"][part]["llm"], "min_mass": 0.0}
    values.update(overrides)
    params = EvolveParams.model_validate(values)
    assert params.recipe == PAPER.name
    return params


def corpus_pairs(corpus: str, count: int, cache_dir: Path) -> tuple[list[Pair], dict]:
    ingest_values = load_section(PARAMS, "ingest", IngestParams).model_dump()
    ingest_values.update(source=corpus, max_abstracts=None, sha256=None)
    abstracts = ingest(IngestParams.model_validate(ingest_values), cache_dir=cache_dir).abstracts
    pairs_params = load_section(PARAMS, "pairs", PairsParams)
    pairs = build_pairs(abstracts, pairs_params, make_cheap_selector(pairs_params.result_selector)).pairs
    if len(pairs) < count:
        raise SystemExit(f"{corpus}: only {len(pairs)} pairs, {count} asked for")
    # a seeded sample of both kinds in proportion, as the evolve stage takes one
    return pipeline.select_pairs(pairs, paper_evolve_params(max_pairs=count)), {a.pmid: a for a in abstracts}


def run_evolve(pairs, abstracts, backbone_params, evolve_params, folder: Path) -> dict:
    """The evolve stage's own run on an empty call cache; its metrics, with client CPU seconds."""
    os.environ["SCICON_CACHE_DIR"] = str(folder)  # a fresh call cache: every call is paid for
    started = time.process_time()
    output = pipeline.run_evolve(
        pairs, list(abstracts.values()), evolve_params, load_thresholds(PARAMS), backbone_params,
        journal=folder / "trace.jsonl", candidates=load_section(PARAMS, "candidates", CandidateParams),
        filter_models=load_section(PARAMS, "filter_models", FilterModels),
    )  # fmt: skip
    metrics = output.metrics
    metrics["client_cpu_seconds"] = round(time.process_time() - started, 2)
    return metrics


# ---- utilisation ---------------------------------------------------------------------------------


class ServerProcess:
    def __init__(self, latency: float, capacity: int):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        command = [sys.executable, "-m", "perf.simulated_server", "--port", str(self.port),
                   "--latency", str(latency), "--capacity", str(capacity)]  # fmt: skip
        self.process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL)
        if not serving(self.process, self.url, seconds=30, poll_seconds=0.2):
            raise SystemExit("the simulated server did not start")

    def stats(self) -> dict:
        return httpx.get(f"{self.url}/stats", timeout=10).json()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def utilisation(args) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="scicon-scaleout-"))
    pairs, abstracts = corpus_pairs(args.corpus, args.pairs, folder / "ingest")
    figures: dict = {
        "pairs": len(pairs),
        "latency_seconds": args.latency,
        "capacity_per_server": args.capacity,
    }
    per_generation = None
    for servers in (1, 2):
        processes = [ServerProcess(args.latency, args.capacity) for _ in range(servers)]
        try:
            evolve_params = paper_evolve_params()
            sizes = EvolutionarySettings.model_validate(evolve_params.settings["search"]["evolutionary"])
            per_generation = sizes.population_size * sizes.candidates_per_mutation
            # pairs at once × requests per generation ≈ 4 × the slots: a pair's scoring batches
            # are smaller than its rewrite batch (duplicates and filtered candidates drop out)
            workers = args.workers or math.ceil(4 * servers * args.capacity / per_generation)
            evolve_params = paper_evolve_params(workers=workers)
            backbone_params = merged_backbone_params(
                load_section(PARAMS, "backbone", BackboneParams),
                {"backend": "openai", "model": "simulated-llm",
                 "openai": {"base_url": [p.url for p in processes], "max_concurrency": args.capacity,
                            "api_key_env": None}},
            )  # fmt: skip
            run_folder = folder / f"{servers}-server"
            run_folder.mkdir()
            metrics = run_evolve(pairs, abstracts, backbone_params, evolve_params, run_folder)
            served = [p.stats() for p in processes]
        finally:
            for process in processes:
                process.stop()
        backbone = metrics["backbone"]
        requests = sum(e["attempts"] for e in backbone["endpoints"].values())
        seconds = metrics["wall_seconds"]
        capacity_per_second = servers * args.capacity / args.latency
        figures[f"{servers}_server"] = {
            "pairs_at_once": workers,
            "requests": requests,
            "wall_seconds": seconds,
            "requests_per_second": round(requests / seconds, 1),
            "capacity_requests_per_second": round(capacity_per_second, 1),
            "utilisation": round(requests / seconds / capacity_per_second, 3),
            "mean_in_flight_client": backbone["requests_mean_in_flight"],
            "mean_in_flight_servers": round(sum(s["mean_active"] for s in served), 1),
            "slots": servers * args.capacity,
            "client_cpu_seconds_per_1000_requests": round(1000 * metrics["client_cpu_seconds"] / requests, 2),
            "succeeded": metrics["succeeded"],
            "failed": metrics["failed"],
            "skipped": metrics["skipped"],
            "errors": metrics["errors"],
        }
    one, two = figures["1_server"], figures["2_server"]
    figures["two_server_speedup"] = round(two["requests_per_second"] / one["requests_per_second"], 2)
    figures["requests_per_generation_of_a_pair"] = per_generation
    if args.real_pairs:
        served = real_server_utilisation(pairs[: args.real_pairs], abstracts, args, folder)
        figures["llama_cpp_server"] = served
    return figures


def real_server_utilisation(pairs, abstracts, args, folder: Path) -> dict:
    """The same search against llama.cpp's own OpenAI-compatible server with the embedded SmolLM2
    on this machine. It answers one request at a time, so its utilisation is the share of the
    run it had a request to work on (the client's ``busy_share``); what queues behind that is
    the mean in flight."""
    run_folder = folder / "llama-cpp-server"
    run_folder.mkdir()
    with llama_cpp_server(
        args.real_model, log_path=run_folder / "server.log", served_name="served", threads=args.real_threads
    ) as base_url:
        backbone_params = merged_backbone_params(
            load_section(PARAMS, "backbone", BackboneParams),
            {"backend": "openai", "model": "served", "openai": {"base_url": base_url, "api_key_env": None}},
        )
        evolve_params = paper_evolve_params(workers=args.real_workers, max_iterations=args.real_iterations)
        metrics = run_evolve(pairs, abstracts, backbone_params, evolve_params, run_folder)
    backbone = metrics["backbone"]
    (endpoint,) = backbone["endpoints"].values()
    requests = endpoint["attempts"]
    return {
        "model": args.real_model,
        "pairs": len(pairs),
        "pairs_at_once": args.real_workers,
        "requests": requests,
        "wall_seconds": metrics["wall_seconds"],
        "requests_per_second": round(requests / metrics["wall_seconds"], 2),
        "utilisation": endpoint["busy_share"],
        "mean_in_flight_client": endpoint["mean_in_flight"],
        "client_cpu_seconds_per_1000_requests": round(1000 * metrics["client_cpu_seconds"] / requests, 2),
        "failed": endpoint["failed"],
    }


# ---- a real trace and the projection -------------------------------------------------------------


def trace(args) -> dict:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pairs, abstracts = corpus_pairs(args.corpus, args.pairs, out / "ingest")
    overrides: dict = {"model": args.model, "llama_cpp": {"threads": args.threads}}
    if args.base_url:
        overrides.update(backend="openai", openai={"base_url": args.base_url})
    backbone_params = merged_backbone_params(load_section(PARAMS, "backbone", BackboneParams), overrides)
    (out / "trace.jsonl").unlink(missing_ok=True)
    (out / "calls.sqlite").unlink(missing_ok=True)
    evolve_params = paper_evolve_params(workers=args.workers, max_iterations=args.iterations)
    metrics = run_evolve(pairs, abstracts, backbone_params, evolve_params, out)
    metrics["model"] = args.model
    write_json(out / "metrics.json", metrics)
    return metrics


def project(args) -> dict:
    out = Path(args.out)
    metrics = json.loads((out / "metrics.json").read_text())
    traces = list(read_jsonl(out / "trace.jsonl", PairTrace))
    backbone = metrics["backbone"]
    tokens = backbone["tokens"]
    attempted = sum(t.status in ("succeeded", "failed") for t in traces)
    accepted = sum(t.accepted is not None for t in traces)
    generations = sum(len(t.generations) for t in traces)
    rewrites, scores = backbone.get("generate_computed", 0), backbone.get("yes_no_computed", 0)
    if not attempted or not rewrites or not scores:
        raise SystemExit("the trace has no attempted pair with rewrites and scores: trace more pairs")
    # Measured per call. A server also generates the one token a score reads (counted in
    # its usage; an in-process backend reads the logits without sampling it).
    rewrite = {
        "prompt": tokens["generate"]["prompt_tokens"] / rewrites,
        "generated": tokens["generate"]["completion_tokens"] / rewrites,
    }
    score = {"prompt": tokens["yes_no"]["prompt_tokens"] / scores, "generated": 1.0}
    prompt = tokens["generate"]["prompt_tokens"] + tokens["yes_no"]["prompt_tokens"]
    generated = tokens["generate"]["completion_tokens"] + scores
    figures: dict = {
        "model": metrics.get("model"),
        "pairs": len(traces),
        "attempted": attempted,
        "accepted": accepted,
        "generations": generations,
        "tokens_by_operation": tokens,
        "per_rewrite_call": {k: round(v, 1) for k, v in rewrite.items()},
        "per_score_call": {k: round(v, 1) for k, v in score.items()},
        "this_trace": {
            "rewrites_per_generation": round(rewrites / generations, 1),
            "scores_per_generation": round(scores / generations, 1),
            "generations_per_attempted_pair": round(generations / attempted, 2),
            "prompt_tokens_per_attempted_pair": round(prompt / attempted),
            "generated_tokens_per_attempted_pair": round(generated / attempted),
            "success_rate": round(accepted / attempted, 3),
        },
    }
    paper = paper_search_costs(rewrite, score)
    per_accepted = {kind: paper[f"{kind}_tokens_per_attempted_pair"] / PAPER_SUCCESS_RATE for kind in rewrite}
    figures["paper_settings"] = {
        **paper,
        "prompt_tokens_per_accepted_pair": round(per_accepted["prompt"]),
        "generated_tokens_per_accepted_pair": round(per_accepted["generated"]),
        **{
            f"gpu_hours_per_100k_accepted ({name})": gpu_hours(per_accepted, published, 100_000)
            for name, published in PUBLISHED_THROUGHPUT.items()
        },
    }
    return figures


def paper_search_costs(rewrite: dict[str, float], score: dict[str, float]) -> dict:
    """Tokens per attempted pair of the paper's search, from tokens per call.

    Assumptions (the paper's figures where it gives them): N_pop × N_candidates = 20
    rewrites per generation, all distinct; the topic score for all 20, the claim score
    for the 80% that pass T_sim, the teacher's score for the 96% of those that pass
    T_claim (appendix C: pass rates at the default thresholds); one score of the original
    pair; 31.3% of attempted pairs accepted (appendix C), a failed pair running all 4
    generations and an accepted one stopping after 2.5 on average (the paper gives no
    distribution: uniform over 1..4). Skipped pairs (one score each) are left out.
    """
    iterations, sim_pass, claim_pass = 4, 0.80, 0.96
    rewrites = 20
    scores = rewrites * (1 + sim_pass + sim_pass * claim_pass)
    generations = (1 - PAPER_SUCCESS_RATE) * iterations + PAPER_SUCCESS_RATE * (1 + iterations) / 2
    per_generation = {k: rewrites * rewrite[k] + scores * score[k] for k in rewrite}
    return {
        "success_rate": PAPER_SUCCESS_RATE,
        "rewrites_per_generation": rewrites,
        "scores_per_generation": round(scores, 1),
        "generations_per_attempted_pair": round(generations, 2),
        "calls_per_attempted_pair": round(1 + generations * (rewrites + scores), 1),
        **{
            f"{k}_tokens_per_attempted_pair": round(score[k] + generations * v)
            for k, v in per_generation.items()
        },
    }


def gpu_hours(per_pair: dict[str, float], published: dict, pairs: int) -> dict:
    """GPU-hours for ``pairs`` pairs from a published output-token rate at 2,048 in / 128 out.

    One benchmark point cannot split a request's GPU time between its prompt and its
    generated tokens, so three readings: all of it spent on the 2,048 prompt tokens, all
    on the 128 generated ones, or the same cost for every token. The truth lies between
    the first two; the more generated tokens per prompt token a workload has compared
    with the benchmark's 1:16, the nearer it is to the second.
    """
    rate = published["output_tokens_per_second"]
    seconds_per_request = BENCHMARK_OUTPUT / rate
    readings = {
        "all_on_prompt_tokens": per_pair["prompt"] * seconds_per_request / BENCHMARK_INPUT,
        "all_on_generated_tokens": per_pair["generated"] * seconds_per_request / BENCHMARK_OUTPUT,
        "same_cost_per_token": (per_pair["prompt"] + per_pair["generated"])
        * seconds_per_request
        / (BENCHMARK_INPUT + BENCHMARK_OUTPUT),
    }
    return {name: round(pairs * seconds * published["gpus"] / 3600, 1) for name, seconds in readings.items()}


def show(figures: dict, indent: str = "") -> None:
    width = max(map(len, figures))
    for key, value in figures.items():
        if isinstance(value, dict):
            print(f"{indent}{key}:")
            show(value, indent + "  ")
        else:
            print(f"{indent}{key:<{width}}  {value}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    use = commands.add_parser("utilisation", help="evolve against one and two simulated servers")
    use.add_argument("--corpus", required=True, help="a corpus file ingest reads (RCT text, XML, JSON)")
    use.add_argument("--pairs", type=int, default=200)
    use.add_argument("--latency", type=float, default=0.5, help="seconds per request")
    use.add_argument("--capacity", type=int, default=64, help="requests each server serves at once")
    use.add_argument(
        "--workers", type=int, help="pairs searched at once (default: 4 × slots ÷ rewrites per generation)"
    )
    use.add_argument(
        "--real-pairs", type=int, default=0,
        help="also search this many of the pairs against a real llama.cpp server on this machine",
    )  # fmt: skip
    use.add_argument("--real-model", default="embedded:smollm2-135m-instruct", help="the server's model")
    use.add_argument("--real-threads", type=int, help="the server's CPU threads (default: llama.cpp's)")
    use.add_argument("--real-workers", type=int, default=2, help="pairs searched at once against it")
    use.add_argument("--real-iterations", type=int, default=1, help="generations at most against it")
    real = commands.add_parser("trace", help="evolve with a real model, tokens counted")
    real.add_argument("--corpus", required=True)
    real.add_argument("--pairs", type=int, default=8)
    real.add_argument("--model", default="embedded:smollm2-135m-instruct")
    real.add_argument("--base-url", help="an OpenAI-compatible server instead of in-process llama.cpp")
    real.add_argument("--threads", type=int)
    real.add_argument("--workers", type=int, default=1)
    real.add_argument(
        "--iterations",
        type=int,
        default=4,
        help="generations at most (fewer: a shorter trace, same tokens per generation)",
    )
    real.add_argument("--out", required=True, help="folder for the trace and its metrics")
    cost = commands.add_parser("project", help="GPU-hours per 100,000 accepted pairs from a trace")
    cost.add_argument("--out", required=True, help="the folder `trace` wrote")
    for command in (use, real, cost):
        command.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    figures = {"utilisation": utilisation, "trace": trace, "project": project}[args.command](args)
    if args.command == "trace":
        figures = {
            key: figures[key] for key in ("pairs_tried", "succeeded", "failed", "skipped", "wall_seconds")
        }
    show(figures)
    if args.json:
        write_json(Path(args.json), figures)


if __name__ == "__main__":
    main()
