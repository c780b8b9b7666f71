"""The finder: contradicting findings across a corpus of abstracts, ranked, with their evidence.

What SciCon's classifiers are for (the EvoNLI paper, sections 7 and 8): claims of different
studies about the same question are paired by nearest-neighbour search on sentence
embeddings (:mod:`scicon.find.neighbours`), kept when the calibrated same-topic model says
they share a topic, checked for comparability — a different population, dose or nothing
shared is the paper's main source of false positives (:mod:`scicon.find.terms`) — scored by
a trained classifier in both sentence orders, grouped by question with each study's stance
(:mod:`scicon.find.stance`), and shown on one self-contained page (:mod:`scicon.find.page`).
Flagged pairs go out for a blind read and come back as precision at k
(:mod:`scicon.find.review`). docs/find.md is the user's guide.
"""
