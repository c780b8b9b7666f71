"""Benchmark evaluation: loaders, trivial baselines, classifiers and zero-shot scores, ROC-AUC with
bootstrap intervals and paired tests (docs/evaluate.md). Import from the submodules."""
