"""The persistent call cache and the accounting every stage reports."""

from __future__ import annotations

import multiprocessing

from scicon.backbones import CachedBackbone, CallCache, Sampling
from scicon.backbones.base import normalise, yes_no_from_logprobs
from scicon.seeds import derive_seed
from tests.scripted_backend import ScriptedBackend

SAMPLING = Sampling(temperature=0.8, max_tokens=32)


def test_second_identical_run_is_served_from_the_cache(tmp_path):
    path = tmp_path / "calls.sqlite"
    first_backend = ScriptedBackend(yes=lambda p: len(p) / 100)
    first = CachedBackbone(first_backend, CallCache(path))
    scores = first.yes_no(["short?", "a longer prompt?"])
    texts = first.generate(["rewrite A", "rewrite B"], [1, 2], n=3, sampling=SAMPLING)
    assert len(first_backend.yes_no_calls) == 2 and len(first_backend.generate_calls) == 6

    second_backend = ScriptedBackend(yes=lambda p: 0.0)  # would answer differently if asked
    second = CachedBackbone(second_backend, CallCache(path))
    assert second.yes_no(["short?", "a longer prompt?"]) == scores
    assert second.generate(["rewrite A", "rewrite B"], [1, 2], n=3, sampling=SAMPLING) == texts
    assert second_backend.yes_no_calls == [] and second_backend.generate_calls == []
    assert second.stats.as_metrics()["calls_computed"] == 0
    assert second.stats.as_metrics()["cache_hit_rate"] == 1.0


def test_identical_prompts_in_a_batch_are_computed_once():
    backend = ScriptedBackend()
    backbone = CachedBackbone(backend, cache=None)
    backbone.yes_no(["same", "same", "other", "same"])
    assert sorted(backend.yes_no_calls) == ["other", "same"]
    metrics = backbone.stats.as_metrics()
    assert (metrics["calls_requested"], metrics["calls_computed"]) == (4, 2)


def test_more_samples_reuse_the_ones_already_paid_for(tmp_path):
    cache = CallCache(tmp_path / "calls.sqlite")
    backend = ScriptedBackend(generate=lambda r: f"{r.prompt}/{r.seed}")
    backbone = CachedBackbone(backend, cache)
    three = backbone.generate(["p"], [5], n=3, sampling=SAMPLING)[0]
    five = backbone.generate(["p"], [5], n=5, sampling=SAMPLING)[0]
    assert five[:3] == three
    assert len(backend.generate_calls) == 5
    # sample j of a prompt is drawn with a seed derived from (seed, j) only
    assert [r.seed for r in backend.generate_calls] == [derive_seed(5, j) for j in range(5)]


def test_cache_key_covers_model_identity_sampling_and_seed(tmp_path):
    path = tmp_path / "calls.sqlite"
    base = CachedBackbone(ScriptedBackend(), CallCache(path))
    base.generate(["p"], [1], n=1, sampling=SAMPLING)
    for backbone, seed, sampling in [
        (CachedBackbone(ScriptedBackend(identity="other-model"), CallCache(path)), 1, SAMPLING),
        (CachedBackbone(ScriptedBackend(), CallCache(path)), 2, SAMPLING),
        (CachedBackbone(ScriptedBackend(), CallCache(path)), 1, Sampling(temperature=0.0, max_tokens=32)),
    ]:
        backbone.generate(["p"], [seed], n=1, sampling=sampling)
        assert backbone.stats.as_metrics()["calls_computed"] == 1


def _write_entries(path: str, worker: int) -> None:
    backbone = CachedBackbone(ScriptedBackend(yes=lambda p: 0.25), CallCache(path))
    backbone.yes_no([f"worker {worker} prompt {i}" for i in range(200)] + ["shared prompt"])


def test_concurrent_writer_processes_share_one_cache(tmp_path):
    path = str(tmp_path / "calls.sqlite")
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write_entries, args=(path, w)) for w in range(3)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=120)
        assert process.exitcode == 0
    assert len(CallCache(path)) == 3 * 200 + 1


def test_file_digests_are_remembered_until_the_file_changes(tmp_path):
    cache = CallCache(tmp_path / "calls.sqlite")
    model = tmp_path / "model.gguf"
    model.write_bytes(b"weights v1")
    first = cache.file_sha256(model)
    assert cache.file_sha256(model) == first
    model.write_bytes(b"weights v2, longer")
    assert cache.file_sha256(model) != first


def test_yes_no_combines_every_casing_and_normalises():
    answer = yes_no_from_logprobs(
        [("Yes", -1.0), (" yes", -2.0), ("No", -1.5), ("The", -0.5), (" NO ", -3.0)]
    )
    import math

    p_yes = math.exp(-1.0) + math.exp(-2.0)
    p_no = math.exp(-1.5) + math.exp(-3.0)
    assert abs(answer.p_yes - p_yes / (p_yes + p_no)) < 1e-12
    assert abs(answer.mass - (p_yes + p_no)) < 1e-12
    assert normalise(0.0, 0.0).p_yes == 0.5
