"""The entailment judge: P(premise entails hypothesis), trained on labelled NLI in the DAG.

The pairs stage's TF-IDF selector picks the RESULTS sentence most like a conclusion, and
about half of the "entailing" pairs it makes are not entailments (gold dev). The
`entailment` stage trains a binary classifier, entailment vs not, on labelled NLI sets
only (the teacher's loaders, ``entailment.labelled``), calibrates it on held-out premises
and saves it like the teacher (``models/entailment``); the pairs stage uses it to choose
the supporting result and to drop pairs it does not believe (docs/entailment.md).
"""
