"""The CPU threads a stage's models compute with, and the rule that they compute one at a time.

torch, llama.cpp and faiss each start a pool of worker threads, sized by default from the
host's CPU count. Two pools busy on the same cores at once do not share them: their
threads spin while they wait, and a fluency batch that takes 45 s alone took 10 minutes
beside a second 2-thread job on 2 cores. So:

- one budget, :func:`thread_budget`, for every model a stage runs: the top-level
  ``threads`` of params.yaml, or, when it is null, the cores this process may use (its
  CPU affinity, capped by a cgroup CPU quota, which the host's CPU count ignores inside a
  container). :func:`apply_thread_budget` sets it before any model library starts its
  pool (``OMP_NUM_THREADS``, read by torch and faiss) and the llama.cpp backends size their
  threads by it;
- in one process, a model's forward pass holds :data:`COMPUTE_LOCK`, so models called
  from several threads (EvoNLI's workers, the fluency check beside the classifier) take
  turns on the budget's cores instead of fighting over them. Requests to a served model
  (the OpenAI-compatible backend) do not take it: they wait on the network.

Stages run side by side (``dvc queue start -j 2``) share the machine by setting
``threads`` to their share of the cores (``-S threads=1`` for two on 2 cores).
"""

from __future__ import annotations

import math
import os
import sys
import threading
from pathlib import Path

# Held by every in-process forward pass (classifiers, sentence encoders, language models).
COMPUTE_LOCK = threading.RLock()

CGROUP_V2_CPU_MAX = Path("/sys/fs/cgroup/cpu.max")
CGROUP_V1_QUOTA = Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")
CGROUP_V1_PERIOD = Path("/sys/fs/cgroup/cpu/cpu.cfs_period_us")
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")

_budget: int | None = None
# what the user exported before this process set anything: read once, since applying a budget
# writes the variable
_USER_OMP_NUM_THREADS = os.environ.get("OMP_NUM_THREADS", "")


def cgroup_cpu_quota(
    v2: Path = CGROUP_V2_CPU_MAX, v1_quota: Path = CGROUP_V1_QUOTA, v1_period: Path = CGROUP_V1_PERIOD
) -> int | None:
    """The cores a cgroup CPU quota allows (rounded up), or None without a quota."""
    try:
        limit, period = v2.read_text().split()[:2]
        return None if limit == "max" else max(1, math.ceil(int(limit) / int(period)))
    except (OSError, ValueError):
        pass
    try:
        quota, period = int(v1_quota.read_text()), int(v1_period.read_text())
    except (OSError, ValueError):
        return None
    return None if quota <= 0 or period <= 0 else max(1, math.ceil(quota / period))


def available_cores() -> int:
    """The cores this process may run on: its CPU affinity, within any cgroup CPU quota."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    quota = cgroup_cpu_quota()
    return max(1, min(cores, quota) if quota else cores)


def apply_thread_budget(threads: int | None) -> int:
    """Make ``threads`` the budget of this process's models and return it. None: the
    ``OMP_NUM_THREADS`` the user set, else :func:`available_cores`.

    Called by every stage before it loads a model: the thread pools of torch, faiss and
    OpenMP read ``OMP_NUM_THREADS`` when they start; torch's pool, if already started, is
    resized."""
    global _budget
    _budget = threads or _threads_from_environment() or available_cores()
    for variable in THREAD_VARIABLES:
        os.environ[variable] = str(_budget)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(_budget)
    return _budget


def _threads_from_environment() -> int | None:
    value = _USER_OMP_NUM_THREADS
    return int(value) if value.isdigit() and int(value) > 0 else None


def thread_budget() -> int:
    """The threads a model of this process may use (the applied budget, else the cores)."""
    return _budget if _budget is not None else available_cores()
