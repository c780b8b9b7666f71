"""Two models on one machine's cores: side by side, taking turns, or each with its share.

Two workloads a stage runs, on the demo corpus' sentences: a fluency batch (log-likelihoods
of SmolLM2 through llama.cpp, as the candidate checks score) and an encoder batch (MiniLM
sentence embeddings through torch, as the topic filter and the finder encode). Measured in
one run, every time as a ratio to the same work done alone, one workload after the other:

- in one process, the two batches from two threads at once, with the models free to
  compute at the same time (each pool sized to the machine's cores) and with
  :data:`scicon.threads.COMPUTE_LOCK` making them take turns (what the stages do);
- two processes side by side, each running the fluency batch, with llama.cpp's threads at
  the machine's cores in each (what two queued experiments did before) and at half of them
  (``-S threads=1`` each, on 2 cores).

    python -m perf.thread_sharing --sentences 48 --encode 1500
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from scicon.backbones.llama_cpp_backend import LlamaCppBackend
from scicon.corpus.readers import read_corpus
from scicon.fitted.base import encode
from scicon.io import write_json
from scicon.models import resolve_model
from scicon.threads import apply_thread_budget, available_cores

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "data" / "demo" / "demo_rct.txt"
LANGUAGE_MODEL = "embedded:smollm2-135m-instruct"
ENCODER = "embedded:all-minilm-l6-v2"
# the modules whose forward passes take the compute lock, patched out for the "free" runs
LOCKING_MODULES = ("scicon.backbones.llama_cpp_backend", "scicon.fitted.base")


def demo_sentences() -> list[str]:
    return [sentence.text for abstract in read_corpus(CORPUS) for sentence in abstract.sentences]


def fluency_batch(texts: list[str], threads: int, start_at: float | None = None) -> float:
    """Seconds to score ``texts`` with SmolLM2 on ``threads`` llama.cpp threads (model loaded
    first; with ``start_at``, a wall-clock time, the batch starts then)."""
    backend = LlamaCppBackend(resolve_model(LANGUAGE_MODEL), chat_template="none", threads=threads)
    backend.log_likelihood(texts[:1])  # the likelihood model is loaded on first use
    if start_at is not None:
        time.sleep(max(0.0, start_at - time.time()))
    started = time.perf_counter()
    backend.log_likelihood(texts)
    seconds = time.perf_counter() - started
    backend.close()
    return seconds


def encoder_batch(texts: list[str]) -> float:
    encode(ENCODER, texts[:8], batch_size=64)  # loaded first
    started = time.perf_counter()
    encode(ENCODER, texts, batch_size=64)
    return time.perf_counter() - started


def side_by_side(fluency_texts: list[str], encoder_texts: list[str], threads: int) -> float:
    """Wall seconds of both batches started together from two threads."""
    backend = LlamaCppBackend(resolve_model(LANGUAGE_MODEL), chat_template="none", threads=threads)
    backend.log_likelihood(fluency_texts[:1])
    encode(ENCODER, encoder_texts[:8], batch_size=64)
    start = threading.Barrier(2)

    def fluency() -> None:
        start.wait()
        backend.log_likelihood(fluency_texts)

    def encoder() -> None:
        start.wait()
        encode(ENCODER, encoder_texts, batch_size=64)

    workers = [threading.Thread(target=fluency), threading.Thread(target=encoder)]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    seconds = time.perf_counter() - started
    backend.close()
    return seconds


@contextlib.contextmanager
def without_compute_lock():
    modules = [importlib.import_module(name) for name in LOCKING_MODULES]
    saved = [module.COMPUTE_LOCK for module in modules]
    for module in modules:
        module.COMPUTE_LOCK = contextlib.nullcontext()
    try:
        yield
    finally:
        for module, lock in zip(modules, saved, strict=True):
            module.COMPUTE_LOCK = lock


def processes_side_by_side(count: int, sentences: int, threads: int) -> float:
    """The mean seconds of the fluency batch in ``count`` processes started together, each on
    ``threads`` threads (each loads its model first; the batches begin at one agreed time)."""
    start_at = time.time() + 20.0
    command = [
        *(sys.executable, "-m", "perf.thread_sharing", "--fluency-only", str(threads)),
        *("--sentences", str(sentences), "--start-at", str(start_at)),
    ]
    running = [subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True) for _ in range(count)]
    seconds = []
    for process in running:
        output, _ = process.communicate()
        if process.returncode:
            raise SystemExit(f"a fluency process failed ({process.returncode})")
        seconds.append(float(output.strip().splitlines()[-1]))
    return sum(seconds) / len(seconds)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=48, help="sentences in the fluency batch")
    parser.add_argument("--encode", type=int, default=1500, help="sentences in the encoder batch")
    parser.add_argument("--fluency-only", type=int, metavar="THREADS", help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help="also write the figures here (JSON)")
    args = parser.parse_args(argv)
    texts = demo_sentences()
    fluency_texts = (texts * 10)[: args.sentences]
    if args.fluency_only is not None:
        apply_thread_budget(args.fluency_only)
        print(fluency_batch(fluency_texts, args.fluency_only, args.start_at))
        return
    cores = apply_thread_budget(None)
    encoder_texts = [f"{text} ({index})" for index, text in enumerate((texts * 40)[: args.encode])]
    figures: dict = {"cores": available_cores(), "fluency_sentences": len(fluency_texts)}
    alone = {"fluency": fluency_batch(fluency_texts, cores), "encoder": encoder_batch(encoder_texts)}
    one_after_other = alone["fluency"] + alone["encoder"]
    with without_compute_lock():
        free = side_by_side(fluency_texts, encoder_texts, cores)
    taking_turns = side_by_side(fluency_texts, encoder_texts, cores)
    figures["one_process"] = {
        "fluency_alone_s": round(alone["fluency"], 2),
        "encoder_alone_s": round(alone["encoder"], 2),
        "one_after_other_s": round(one_after_other, 2),
        "side_by_side_free_s": round(free, 2),
        "side_by_side_taking_turns_s": round(taking_turns, 2),
        "free_ratio": round(free / one_after_other, 2),
        "taking_turns_ratio": round(taking_turns / one_after_other, 2),
    }
    single = processes_side_by_side(1, len(fluency_texts), cores)
    shared = processes_side_by_side(2, len(fluency_texts), cores)
    split = processes_side_by_side(2, len(fluency_texts), max(1, cores // 2))
    # two batches on the same cores take at least twice as long as one alone: a ratio to
    # that, 1.0 being a perfect share
    figures["two_processes"] = {
        "batch_alone_s": round(single, 2),
        "batch_beside_another_all_cores_each_s": round(shared, 2),
        f"batch_beside_another_{max(1, cores // 2)}_threads_each_s": round(split, 2),
        "all_cores_each_ratio_to_twice_alone": round(shared / (2 * single), 2),
        "share_each_ratio_to_twice_alone": round(split / (2 * single), 2),
    }
    print(json.dumps(figures, indent=2))
    if args.out:
        write_json(args.out, figures)


if __name__ == "__main__":
    main()
