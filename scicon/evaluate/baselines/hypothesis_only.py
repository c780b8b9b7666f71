"""Hypothesis only: how much the second sentence alone gives the label away.

After "Hypothesis Only Baselines in Natural Language Inference" (Poliak et al., 2018)
and "Annotation Artifacts in Natural Language Inference Data" (Gururangan et al.,
2018): a TF-IDF (word 1-2-grams, sublinear tf) logistic regression that never sees
the premise. It is trained on the benchmark itself, so every score is out-of-fold:
k-fold cross-validation, stratified by label, seeded, and grouped — pairs sharing a
group (premise, trial, abstract, or else the identical hypothesis) are never split
between training and scoring, so a repeated claim cannot be memorised. Note the
asymmetry: this baseline is fitted in distribution, while the classifiers it is
compared with never saw the benchmark; it measures the benchmark's artefacts, an
upper reference for what a shortcut could reach.

Scores from different folds come from different models; pooled ROC-AUC over them is
the usual cross-validated estimate. A fold whose training part has one class only
scores its pairs with that part's contradiction share.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
from pydantic import Field

from scicon.evaluate.baselines import BASELINES, BaselineUnavailable
from scicon.params import Section
from scicon.records.benchmark import BenchmarkPair
from scicon.textdiff import normalised_sentence

log = logging.getLogger(__name__)


class HypothesisOnlySettings(Section):
    folds: int = Field(ge=2, description="cross-validation folds (fewer when there are fewer groups)")


def fold_group(pair: BenchmarkPair) -> str:
    """The benchmark's group, or else the hypothesis itself (identical claims share a fold)."""
    return pair.group if pair.group is not None else normalised_sentence(pair.sentence2)


def out_of_fold_scores(pairs: Sequence[BenchmarkPair], folds: int, seed: int) -> list[float]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedGroupKFold
    from sklearn.pipeline import make_pipeline

    texts = np.array([p.sentence2 for p in pairs], dtype=object)
    labels = np.array([p.label for p in pairs])
    groups = np.array([fold_group(p) for p in pairs], dtype=object)
    splits = min(folds, len(set(groups.tolist())))
    if splits < 2:
        raise BaselineUnavailable("all pairs are in one group: no held-out fold")
    if splits < folds:
        log.info("hypothesis only: %d groups, so %d folds instead of %d", splits, splits, folds)
    scores = np.empty(len(pairs))
    splitter = StratifiedGroupKFold(n_splits=splits, shuffle=True, random_state=seed)
    for train, held_out in splitter.split(texts, labels, groups):
        if len(set(labels[train].tolist())) < 2:
            scores[held_out] = labels[train].mean()
            continue
        model = make_pipeline(
            TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True),
            LogisticRegression(max_iter=1000),
        )
        model.fit(texts[train], labels[train])
        scores[held_out] = model.predict_proba(texts[held_out])[:, 1]
    return scores.tolist()


@BASELINES.register(
    "hypothesis_only",
    settings=HypothesisOnlySettings,
    description="TF-IDF logistic regression on the second sentence alone, out-of-fold (grouped k-fold)",
)
def hypothesis_only(settings: HypothesisOnlySettings, seed: int):
    def score(pairs: Sequence[BenchmarkPair]) -> list[float]:
        return out_of_fold_scores(pairs, settings.folds, seed)

    return score
