"""The verifier: a second contradiction classifier, one the search never queried.

EvoNLI stops when its goal classifier is confident, so the pairs it accepts are, among other
things, the places where that classifier is wrong. The verifier is trained like the entailment
judge (labelled NLI first, then the annotators' judgements; :mod:`scicon.entailment.train`), but
it reads plain pairs, never an edit marked, and it can have another backbone: the build keeps a
generated contradiction only when the verifier calls it one too (:mod:`scicon.dataset.gate`).
Training (:mod:`scicon.verifier.train`) checkpoints into the SciCon cache, so that an interrupted
run resumes where it stopped; the gate's assembly (:mod:`scicon.verifier.gate`) loads no training code.
"""
