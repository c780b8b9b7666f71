"""The contradiction teacher trained in the DAG, before EvoNLI searches against it.

Every language model that runs offline here is at chance as a zero-shot teacher, but
the paper's own ablation (Table 2, "Cross Encoder") shows a trained classifier is a
legitimate one. The `teacher` stage trains it from data the DAG makes without any
teacher — rule negatives in cross-sentence form, originals and label-preserving controls,
plus any labelled NLI files a user names — and calibrates its probabilities on held-out
abstracts, so that `target` means what it says.
"""
