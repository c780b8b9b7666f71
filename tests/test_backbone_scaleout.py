"""Scale-out over OpenAI-compatible servers: several replicas, one failing mid-run; the pool
of slots shared by all pairs; truthful yes/no mass; truncated completions; served-model checks.

The servers are real HTTP servers on 127.0.0.1 (perf.simulated_server): fixed latency,
fixed capacity, vLLM-shaped replies.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from perf.simulated_server import SimulatedServer
from scicon.backbones import BackboneError, BackboneParams, CachedBackbone, CallCache, Sampling, load_backbone
from scicon.backbones.base import GenerationRequest
from scicon.backbones.endpoints import EndpointPool, Outcome
from scicon.backbones.openai_http import OpenAICompatibleBackend
from scicon.evolve.assembly import assemble
from scicon.evolve.metrics import evolve_metrics
from scicon.evolve.params import EvolveParams
from scicon.evolve.runner import read_journal, run_searches
from scicon.params import Thresholds
from scicon.prompts import CLASSIFICATION
from scicon.records.corpus import Abstract, Role, Sentence
from scicon.records.pairs import Pair, PairKind
from scicon.transformations.base import MutationRequest
from scicon.transformations.llm import LlmWordReplacement
from tests.evolve_helpers import context, evolve_params, search_sizes, shared
from tests.params_defaults import section
from tests.scripted_backend import ScriptedBackend

REPO = Path(__file__).resolve().parent.parent
THRESHOLDS = Thresholds(sim=0.5, claim=0.9, target=0.4)
DRUGS = ["velanoxet", "corbimab", "tavirane", "lumoprazole", "dexafen", "orilatin", "pemvarol", "quinodryl"]


def make_pair(n: int) -> Pair:
    drug = DRUGS[n % len(DRUGS)]
    return Pair(
        pair_id=f"P{n}-rc-0-1",
        pmid=f"P{n}",
        kind=PairKind.RESULT_CONCLUSION,
        sentence1=f"Systolic pressure fell by {n + 4} mmHg with {drug} versus placebo at week {n + 2}.",
        sentence2=f"In adults with hypertension, {drug} lowered blood pressure more than placebo did.",
        role1=Role.RESULTS,
        role2=Role.CONCLUSIONS,
        index1=0,
        index2=1,
    )


def abstracts_of(pairs: list[Pair]) -> dict[str, Abstract]:
    return {
        p.pmid: Abstract(
            pmid=p.pmid,
            sentences=(
                Sentence(role=Role.RESULTS, text=p.sentence1),
                Sentence(role=Role.CONCLUSIONS, text=p.sentence2),
            ),
            origin="test",
        )
        for p in pairs
    }


def backbone_params(urls: list[str], **openai) -> BackboneParams:
    values = section("backbone", BackboneParams).model_dump()
    values.update(backend="openai", model="simulated-llm")
    values["openai"].update(base_url=urls, api_key_env=None, **openai)
    return BackboneParams.model_validate(values)


def paper_search_params(**overrides) -> EvolveParams:
    """Every part answered by the backbone, as in the paper; small sizes for a test."""
    values = dict(
        transformation="llm", similarity="llm", claim="llm", goal="llm", seed=5,
        settings=search_sizes(population_size=2, candidates_per_mutation=3, max_iterations=2),
    )  # fmt: skip
    return evolve_params(**{**values, **overrides})


def evolve(pairs, backbone, journal, workers):
    params = paper_search_params(workers=workers)
    abstracts = abstracts_of(pairs)
    parts = context(abstracts=list(abstracts.values()), seed=params.seed, backbone=backbone)
    searches = assemble(params, shared(THRESHOLDS), parts).searches
    return run_searches(
        pairs, searches, journal=journal, config_digest="d1", recipe="test",
        seed=params.seed, abstracts=abstracts, backbones=[backbone], workers=workers,
    )  # fmt: skip


# ---- the endpoint pool on its own -------------------------------------------------------------


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_requests_go_to_the_least_busy_endpoint_below_its_limit():
    pool = EndpointPool(["a", "b"], limit=2)
    taken = [pool.acquire() for _ in range(4)]
    assert sorted(e.url for e in taken) == ["a", "a", "b", "b"]
    assert pool.in_flight == 4
    got = []
    waiter = threading.Thread(target=lambda: got.append(pool.acquire()))
    waiter.start()
    time.sleep(0.1)
    assert not got  # both endpoints full: the fifth request waits for a slot
    pool.release(taken[2], Outcome.ANSWERED)
    waiter.join(timeout=5)
    assert got and got[0] is taken[2]
    assert pool.counters()["requests_waited_for_a_slot"] == 1


def test_busy_share_is_the_time_an_endpoint_had_any_request_in_flight():
    clock = Clock()
    pool = EndpointPool(["a"], limit=4, clock=clock)
    first = pool.acquire()  # t 100: busy from here
    clock.now = 101.0
    second = pool.acquire()  # two in flight for a second
    clock.now = 102.0
    pool.release(first, Outcome.ANSWERED)
    pool.release(second, Outcome.ANSWERED)  # idle from t 102 to 104
    clock.now = 104.0
    third = pool.acquire()
    clock.now = 105.0
    pool.release(third, Outcome.ANSWERED)
    endpoint = pool.counters()["endpoints"]["endpoint_1"]
    assert endpoint["busy_share"] == 0.6  # 3 of 5 seconds
    assert endpoint["mean_in_flight"] == 0.8  # 4 request-seconds over 5


def test_a_failing_endpoint_is_left_alone_for_a_while_and_retries_go_elsewhere():
    clock = Clock()
    pool = EndpointPool(["a", "b"], limit=4, clock=clock)
    first = pool.acquire()
    pool.release(first, Outcome.FAILED)
    # the retry avoids the endpoint that just failed, which is backing off anyway
    assert [pool.acquire(avoid=first.url).url for _ in range(3)] == ["b", "b", "b"]
    clock.now += 0.6  # first back-off: 0.5 s
    assert pool.acquire().url == first.url
    # requests sent before it was put aside fail together: one step of back-off, not several
    again = pool.acquire()
    assert again.url == first.url
    pool.release(again, Outcome.FAILED)
    pool.release(again, Outcome.FAILED)
    assert again.unavailable_until == pytest.approx(clock.now + 1.0)
    counters = pool.counters()["endpoints"]
    assert counters["endpoint_1"]["failed"] == 3 and counters["endpoint_1"]["attempts"] == 3


def test_an_only_endpoint_that_fails_is_retried_after_its_back_off():
    clock = Clock()
    pool = EndpointPool(["a"], limit=1, clock=clock)
    pool.release(pool.acquire(), Outcome.FAILED)
    threading.Timer(0.2, lambda: setattr(clock, "now", clock.now + 0.6)).start()
    started = time.monotonic()
    assert pool.acquire(avoid="a").url == "a"  # no other endpoint: waits out the back-off
    assert time.monotonic() - started < 5


# ---- two real servers, one dying mid-run -------------------------------------------------------


def test_two_servers_one_dying_mid_run_every_pair_finishes_and_no_call_is_lost_or_paid_twice(tmp_path):
    pairs = [make_pair(n) for n in range(12)]
    cache_path = tmp_path / "calls.sqlite"
    with (
        SimulatedServer(latency=0.01, capacity=4) as steady,
        SimulatedServer(latency=0.01, capacity=4, fail_after=25) as dying,
    ):
        params = backbone_params([steady.url, dying.url], max_concurrency=4, max_retries=4)
        with load_backbone(params, cache_path) as backbone:
            result = evolve(pairs, backbone, tmp_path / "trace.jsonl", workers=4)
            metrics = evolve_metrics(result.traces, THRESHOLDS, 1.0, [backbone], 0.95)["backbone"]
        served = {"steady": steady.snapshot(), "dying": dying.snapshot()}

    assert dying.failed and served["dying"]["answered"] == 25
    assert all(t.status in ("succeeded", "failed", "skipped") for t in result.traces)
    assert len(result.traces) == len(pairs)
    # counters add up: every attempt has one outcome, every computed call one answer
    endpoints = list(metrics["endpoints"].values())
    for endpoint in endpoints:
        assert endpoint["attempts"] == endpoint["answered"] + endpoint["failed"] + endpoint["rejected"]
        assert endpoint["peak_in_flight"] <= 4
    assert endpoints[0]["failed"] == 0 and endpoints[1]["failed"] >= 1
    assert sum(e["answered"] for e in endpoints) == metrics["calls_computed"]
    assert endpoints[0]["answered"] == served["steady"]["answered"]
    assert endpoints[1]["answered"] == served["dying"]["answered"]
    # no call lost or duplicated: the cache holds exactly the calls paid for
    assert len(CallCache(cache_path)) == metrics["calls_computed"]
    assert metrics["calls_requested"] == sum(t.backbone_calls for t in result.traces)

    # a second run on the same cache, with one healthy server, pays for nothing and agrees
    with SimulatedServer(latency=0.01, capacity=4) as fresh:
        with load_backbone(backbone_params([fresh.url]), cache_path) as backbone:
            again = evolve(pairs, backbone, tmp_path / "again.jsonl", workers=4)
            assert backbone.stats.as_metrics()["calls_computed"] == 0
        assert fresh.snapshot()["received"] == 0
    strip = lambda t: t.model_dump(exclude={"cache_hits"})  # noqa: E731
    assert [strip(t) for t in again.traces] == [strip(t) for t in result.traces]


def test_in_flight_requests_are_pairs_at_once_times_candidates_bounded_per_endpoint(tmp_path):
    pairs = [make_pair(n) for n in range(8)]
    with (
        SimulatedServer(latency=0.05, capacity=64) as first,
        SimulatedServer(latency=0.05, capacity=64) as second,
    ):
        with load_backbone(
            backbone_params([first.url, second.url], max_concurrency=5), tmp_path / "c.sqlite"
        ) as backbone:
            evolve(pairs, backbone, tmp_path / "trace.jsonl", workers=4)
            metrics = backbone.metrics()
    # 4 pairs × (2 members × 3 candidates) = 24 rewrites wanted at once; 5 per endpoint allowed
    assert first.snapshot()["peak_active"] == 5 and second.snapshot()["peak_active"] == 5
    assert metrics["requests_capacity"] == 10
    assert metrics["requests_waited_for_a_slot"] > 0
    answered = [e["answered"] for e in metrics["endpoints"].values()]
    assert min(answered) > 0.3 * sum(answered)  # both replicas used
    assert metrics["tokens"]["generate"]["completion_tokens"] > 0
    assert metrics["tokens"]["yes_no"]["prompt_tokens"] > 0


class _SlowFirstPair(ScriptedBackend):
    """Pair 0's rewrites wait until the journal holds records of later pairs."""

    def __init__(self, journal):
        super().__init__(
            generate=self._raise,
            yes=lambda prompt: 0.95 if "raised" in prompt.split("sentence2")[-1] else 0.2,
        )
        self.journal = journal
        self.overtaken = threading.Event()

    @staticmethod
    def _raise(request) -> str:
        return request.prompt.split("sentence2: ")[-1].split("\n")[0].replace("lowered", "raised")

    def generate(self, requests):
        if any("fell by 4 mmHg" in r.prompt for r in requests):
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not self.overtaken.is_set():
                if self.journal.exists() and len(self.journal.read_text().splitlines()) >= 3:
                    self.overtaken.set()
                time.sleep(0.02)
        return super().generate(requests)


def test_a_slow_pair_holds_back_neither_the_other_pairs_nor_their_records(tmp_path):
    journal = tmp_path / "trace.jsonl"
    pairs = [make_pair(n) for n in range(6)]
    backend = _SlowFirstPair(journal)
    result = evolve(pairs, CachedBackbone(backend), journal, workers=3)
    assert backend.overtaken.is_set()  # records of later pairs were written while pair 0 ran
    assert [t.pair_id for t in result.traces] == [p.pair_id for p in pairs]
    # the final file is rewritten in pair order, as an uninterrupted sequential run writes it
    assert [json.loads(line)["pair_id"] for line in journal.read_text().splitlines()] == [
        p.pair_id for p in pairs
    ]
    assert len(read_journal(journal, "d1")) == len(pairs)


# ---- what one reply means ----------------------------------------------------------------------


def test_neither_answer_in_the_top_k_is_reported_as_zero_mass_per_kind():
    question = CLASSIFICATION.format(sentence1="A reduced B.", sentence2="A increased B.")
    with SimulatedServer(latency=0.0, answers_in_top_k=False) as server:
        backbone = CachedBackbone(OpenAICompatibleBackend(server.url, "simulated-llm", api_key_env=None))
        (answer,) = backbone.yes_no([question], kind="classification")
        backbone.yes_no(["Is this a claim? Answer:"])
        backbone.close()
    assert answer.mass == 0.0 and answer.p_yes == 0.5
    masses = backbone.metrics()["yes_no_mass"]
    assert masses["classification"] == {"answers": 1, "mean": 0.0, "p5": 0.0, "without_yes_or_no": 1}
    assert masses["unlabelled"]["answers"] == 1


def test_yes_no_mass_statistics_summarise_the_answers_of_a_kind():
    backbone = CachedBackbone(ScriptedBackend())
    backbone.yes_no([f"q{i}" for i in range(20)], kind="similarity")
    backbone.yes_no([], kind="claim")  # nothing asked: no statistics, and no error
    assert list(backbone.metrics()["yes_no_mass"]) == ["similarity"]
    summary = backbone.metrics()["yes_no_mass"]["similarity"]
    assert summary == {"answers": 20, "mean": 1.0, "p5": 1.0, "without_yes_or_no": 0}


def test_a_completion_stopped_by_the_token_limit_is_truncated_and_no_candidate(tmp_path):
    with SimulatedServer(latency=0.0) as server:
        backbone = CachedBackbone(OpenAICompatibleBackend(server.url, "simulated-llm", api_key_env=None),
                                  CallCache(tmp_path / "c.sqlite"))  # fmt: skip
        request = MutationRequest(
            sentence1="Systolic pressure fell by 9 mmHg with velanoxet.",
            sentence2="In adults with hypertension, velanoxet lowered blood pressure more than placebo did.",
            original="In adults with hypertension, velanoxet lowered blood pressure more than placebo did.",
            seed=3,
            count=2,
        )
        short = LlmWordReplacement(backbone, Sampling(temperature=0.9, max_tokens=4)).propose([request])
        roomy = LlmWordReplacement(backbone, Sampling(temperature=0.9, max_tokens=64)).propose([request])
        (completion,) = backbone.generate(["Say something."], [1], n=1, sampling=Sampling(0.0, 64))[0]
        backbone.close()
    assert short == [[None, None]]
    assert all(text is not None for text in roomy[0])
    assert completion.truncated is False and completion.text


def test_too_many_logprobs_fail_at_once_with_the_server_flag_to_change():
    with SimulatedServer(latency=0.0) as server:
        backend = OpenAICompatibleBackend(server.url, "simulated-llm", api_key_env=None, top_logprobs=50)
        with pytest.raises(BackboneError, match="--max-logprobs"):
            backend.yes_no(["Is it? Answer:"])
        backend.close()
        assert server.snapshot()["received"] == 1


def test_new_weights_under_the_same_name_are_reported(tmp_path, caplog):
    store = CallCache(tmp_path / "c.sqlite")
    for root, warns in [("/weights/v1", False), ("/weights/v1", False), ("/weights/v2", True)]:
        with SimulatedServer(latency=0.0, root=root) as server:
            backend = OpenAICompatibleBackend(server.url, "simulated-llm", api_key_env=None)
            caplog.clear()
            with caplog.at_level(logging.WARNING):
                described = backend.check_served_model(store)
            backend.close()
        assert described["root"] == root and "created" not in described
        assert ("set backbone.revision" in caplog.text) is warns


def test_cache_key_covers_top_logprobs_and_api_but_not_the_endpoint():
    def digest(url, **options):
        backend = OpenAICompatibleBackend(url, "m", api_key_env=None, **options)
        backend.close()
        return CachedBackbone(backend).identity_digest

    base = digest("http://127.0.0.1:9/v1")
    assert digest(["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"]) == base
    assert digest("http://127.0.0.1:9/v1", top_logprobs=5) != base
    assert digest("http://127.0.0.1:9/v1", api="completions") != base


def test_old_text_only_generate_entries_are_never_read_as_completions(tmp_path):
    cache = CallCache(tmp_path / "c.sqlite")
    backbone = CachedBackbone(ScriptedBackend(generate=lambda r: "fresh"), cache)
    old_key = backbone._key(
        "generate", {"prompt": "p", "sampling": Sampling(0.5, 8).as_key(), "seed": 1, "sample": 0}
    )
    cache.put_many({old_key: "stale text from an earlier version"})
    (completion,) = backbone.generate(["p"], [1], n=1, sampling=Sampling(0.5, 8))[0]
    assert completion.text == "fresh"


def test_generation_requests_of_a_batch_are_sent_together_in_prompt_order():
    with SimulatedServer(latency=0.0, capacity=1, record_prompts=True) as server:
        backend = OpenAICompatibleBackend(server.url, "simulated-llm", api_key_env=None, max_concurrency=1)
        prompts = ["b shared prefix 2", "a other", "b shared prefix 1"]
        backend.generate([GenerationRequest(p, Sampling(0.0, 8), 1) for p in prompts])
        backend.close()
    assert server.prompts == sorted(prompts)


def test_the_gpu_hour_projection_reads_the_published_rate_per_request():
    from perf.backbone_scaleout import gpu_hours, paper_search_costs

    one_benchmark_request = {"prompt": 2048, "generated": 128}
    published = {"gpus": 2, "output_tokens_per_second": 128}  # one such request per second
    hours = gpu_hours(one_benchmark_request, published, pairs=3600)
    assert hours == {"all_on_prompt_tokens": 2.0, "all_on_generated_tokens": 2.0, "same_cost_per_token": 2.0}
    costs = paper_search_costs({"prompt": 100.0, "generated": 30.0}, {"prompt": 150.0, "generated": 1.0})
    assert costs["scores_per_generation"] == 51.4 and costs["generations_per_attempted_pair"] == 3.53
    assert costs["prompt_tokens_per_attempted_pair"] == round(150 + 3.5305 * (20 * 100 + 51.36 * 150))


@pytest.mark.slow
def test_the_utilisation_benchmark_runs_against_simulated_servers_and_a_real_llama_cpp_server(tmp_path):
    figures_file = tmp_path / "figures.json"
    command = [
        sys.executable, "-m", "perf.backbone_scaleout", "utilisation", "--corpus", "data/demo/demo_rct.txt",
        "--pairs", "4", "--latency", "0.01", "--capacity", "4", "--real-pairs", "1",
        "--json", str(figures_file),
    ]  # fmt: skip
    environment = {**os.environ, "SCICON_CACHE_DIR": str(tmp_path)}
    subprocess.run(command, cwd=REPO, check=True, capture_output=True, env=environment)
    figures = json.loads(figures_file.read_text())
    for servers in ("1_server", "2_server"):
        assert figures[servers]["requests"] > 0 and 0 < figures[servers]["utilisation"] <= 1
    served = figures["llama_cpp_server"]
    assert served["pairs"] == 1 and served["requests"] > 0 and served["failed"] == 0
    assert 0 < served["utilisation"] <= 1
