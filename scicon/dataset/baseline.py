"""Hypothesis-only baseline: how much of the label one sentence's wording gives away.

Annotation artifacts in NLI data let a classifier that never sees the premise beat
chance (the hypothesis-only baselines reported for SNLI and MultiNLI). For generated
contradictions the equivalent risk is an edit with a give-away word. We train a
TF-IDF + logistic-regression classifier on the generated (second) sentence alone and
report its test ROC-AUC in the card and metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from scicon.records.dataset import Example


def hypothesis_only_roc_auc(
    train: Sequence[Example], test: Sequence[Example], hypotheses: Mapping[str, str], seed: int
) -> float | None:
    """Test ROC-AUC of a classifier that sees only each pair's generated sentence; None if undefined."""
    if len({e.label for e in train}) < 2 or len({e.label for e in test}) < 2:
        return None
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=1, sublinear_tf=True)
    features = vectorizer.fit_transform([hypotheses[e.example_id] for e in train])
    model = LogisticRegression(max_iter=1000, random_state=seed)
    model.fit(features, [e.label for e in train])
    scores = model.predict_proba(vectorizer.transform([hypotheses[e.example_id] for e in test]))[:, 1]
    return float(roc_auc_score([e.label for e in test], scores))
