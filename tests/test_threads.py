"""One thread budget per stage, models taking turns on it (scicon.threads)."""

from __future__ import annotations

import argparse
import os
import threading

import pytest

from scicon import threads
from scicon.stage import run_stage, stage_parser
from scicon.threads import COMPUTE_LOCK, apply_thread_budget, available_cores, cgroup_cpu_quota, thread_budget


@pytest.fixture
def clean_budget(monkeypatch):
    """No budget and no thread variable set; afterwards, both as they were (a budget applied here
    must not reach the rest of the session or the processes it starts)."""
    import torch

    saved = {variable: os.environ.pop(variable, None) for variable in threads.THREAD_VARIABLES}
    monkeypatch.setattr(threads, "_budget", None)
    monkeypatch.setattr(threads, "_USER_OMP_NUM_THREADS", "")
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)
    for variable, value in saved.items():
        if value is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = value


def test_a_cgroup_quota_caps_the_cores_and_no_quota_leaves_them(tmp_path):
    v2, quota, period = tmp_path / "cpu.max", tmp_path / "quota", tmp_path / "period"
    absent = tmp_path / "absent"
    v2.write_text("200000 100000\n")
    assert cgroup_cpu_quota(v2, absent, absent) == 2
    v2.write_text("150000 100000\n")  # one and a half cores: two threads may run
    assert cgroup_cpu_quota(v2, absent, absent) == 2
    v2.write_text("max 100000\n")
    assert cgroup_cpu_quota(v2, absent, absent) is None
    quota.write_text("50000\n")
    period.write_text("100000\n")
    assert cgroup_cpu_quota(absent, quota, period) == 1  # cgroup v1
    quota.write_text("-1\n")
    assert cgroup_cpu_quota(absent, quota, period) is None
    assert cgroup_cpu_quota(absent, absent, absent) is None
    assert 1 <= available_cores() <= (os.cpu_count() or 1)


def test_the_budget_is_the_setting_else_the_users_variable_else_the_cores(clean_budget, monkeypatch):
    import torch

    assert apply_thread_budget(1) == 1 == thread_budget() == torch.get_num_threads()
    assert all(os.environ[variable] == "1" for variable in threads.THREAD_VARIABLES)
    monkeypatch.setattr(threads, "_USER_OMP_NUM_THREADS", "1")  # exported before the process began
    assert apply_thread_budget(None) == 1
    monkeypatch.setattr(threads, "_USER_OMP_NUM_THREADS", "")
    assert apply_thread_budget(None) == available_cores() == thread_budget()


def test_every_stage_applies_the_threads_of_its_params_file(clean_budget, tmp_path, capsys):
    seen = []

    def main(args: argparse.Namespace) -> None:
        seen.append(thread_budget())

    params = tmp_path / "params.yaml"
    params.write_text("threads: 1\n")
    run_stage(main, stage_parser("a stage"), ["--params", str(params)])
    params.write_text("threads: null\n")
    run_stage(main, stage_parser("a stage"), ["--params", str(params)])
    assert seen == [1, available_cores()]

    params.write_text("threads: 0\n")
    with pytest.raises(SystemExit) as stopped:
        run_stage(main, stage_parser("a stage"), ["--params", str(params)])
    assert stopped.value.code == 1
    assert "threads" in capsys.readouterr().err and len(seen) == 2


def finishes_only_after_the_lock_is_released(work) -> bool:
    """Whether ``work`` (a forward pass) waits while another thread holds the compute lock."""
    done = threading.Event()
    worker = threading.Thread(target=lambda: (work(), done.set()))
    with COMPUTE_LOCK:
        worker.start()
        waited = not done.wait(timeout=1.0)
    worker.join(timeout=120)
    return waited and done.is_set()


def test_an_encoder_and_a_language_model_take_turns_on_the_cores(clean_budget):
    from scicon.backbones.llama_cpp_backend import LlamaCppBackend
    from scicon.fitted.base import encode
    from scicon.models import resolve_model

    apply_thread_budget(None)
    encode("embedded:all-minilm-l6-v2", ["warm up"], batch_size=4)
    assert finishes_only_after_the_lock_is_released(
        lambda: encode("embedded:all-minilm-l6-v2", ["A sentence to encode."], batch_size=4)
    )
    backend = LlamaCppBackend(resolve_model("embedded:smollm2-135m-instruct"), chat_template="none")
    try:
        backend.log_likelihood(["warm up"])
        assert finishes_only_after_the_lock_is_released(
            lambda: backend.log_likelihood(["A fluent sentence."])
        )
    finally:
        backend.close()


def test_a_llama_cpp_backbone_without_a_thread_count_takes_the_stage_budget(clean_budget):
    from scicon.backbones.llama_cpp_backend import build_llama_cpp
    from scicon.backbones.params import BackboneParams, LlamaCppSettings
    from tests.params_defaults import section

    apply_thread_budget(1)
    params = section("backbone", BackboneParams)
    backend = build_llama_cpp(params, LlamaCppSettings(threads=None), None)
    try:
        assert backend._threads == 1
    finally:
        backend.close()
