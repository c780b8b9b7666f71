"""Benchmark evaluation: loaders, ROC-AUC with bootstrap intervals, zero-shot baseline, overlap."""

from scicon.evaluate.benchmarks import LOADERS, Benchmark, BenchmarkPair, Skipped, load_benchmarks
from scicon.evaluate.run import Evaluation, evaluate_benchmarks

__all__ = [
    "LOADERS",
    "Benchmark",
    "BenchmarkPair",
    "Evaluation",
    "Skipped",
    "evaluate_benchmarks",
    "load_benchmarks",
]
