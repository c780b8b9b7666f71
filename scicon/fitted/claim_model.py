"""P(claim): is a sentence a claim — a finding, an assertion about an outcome — as a probability.

In the EvoNLI paper the claim filter keeps a candidate when the backbone answers "yes" to
"does this sentence contain a claim, finding, hypothesis?" (prompt E.3.6) with probability
at least ``claim``. Without a backbone that can answer, this module learns the question:

- by default from the corpus' own rhetorical roles (paper section 3.1: RESULTS and
  CONCLUSIONS sentences carry the claims, BACKGROUND and METHODS sentences do not), so
  a run on any structured corpus trains its own claim model offline; which roles count
  is ``claim_roles``;
- or from a labelled claim file named in params (``labelled_file``): the JSON-lines
  format of expert claim annotations (``sentences`` and ``labels`` per abstract, as in
  the claim-detection data of Achakulvisut et al., "Claim Extraction in Biomedical
  Publications using Deep Discourse Model and Transfer Learning"), or a plain JSONL or
  CSV of ``sentence``, ``label`` rows.

A corpus never shows the model what a chat model writes instead of a sentence — "Here is
the rewritten sentence2:", "Answer:", a refusal, an echo of the instruction — so a model
of roles has no evidence about such text and scores it near its prior, and a score
relative to the original sentence (the old role scorer's ratio) even passed it with 1.0.
With ``meta_text_negatives`` the instruction lines of the paper's prompts
(:func:`scicon.prompts.instruction_texts`) and the answer-framing lines in
``claim_data/answer_framing.txt`` are added to the training data as non-claims.

Features are TF-IDF word n-grams, sentence embeddings, or both, with a logistic
regression. Examples are split by a seeded hash of their abstract into a fitting part, a
calibration part (:mod:`scicon.calibration` maps the classifier's score to a probability
there) and a held-out part for the quality report, so no abstract is in two parts. The
fitted model is cached under the SciCon cache dir, keyed by its training examples,
encoder and settings.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from scicon.calibration import Calibration, calibration_report, fit_calibration
from scicon.errors import InputFormatError
from scicon.fitted.base import FittedModel, encode, fit_or_load, group_draw, model_key
from scicon.fitted.claim_examples import (
    META_TEXT_GROUP,
    REPORTING_GROUP,
    LabelledSentence,
    examples_from_roles,
    meta_text_examples,
    read_labelled_claims,
    reporting_examples,
    without_reporting_claims,
)
from scicon.params import Operational, Section, meets_threshold
from scicon.records.corpus import Abstract, Role

log = logging.getLogger(__name__)

FORMAT = "scicon-claim-model/1"
Features = Literal["tfidf", "embedding", "tfidf+embedding"]


class ClaimModelSettings(Section):
    """How the claim probability is learnt (params.yaml ``claim_model``)."""

    labelled_file: str | None = Field(description="labelled claim file; null: learn from the corpus' roles")
    claim_roles: tuple[Role, ...] = Field(min_length=1, description="roles whose sentences count as claims")
    non_claim_roles: tuple[Role, ...] = Field(min_length=1, description="roles whose sentences count as not")
    features: Features
    encoder: str = Field(description="sentence encoder for embedding features")
    meta_text_negatives: bool = Field(description="prompt instructions and answer framing as non-claims")
    reporting_negatives: bool = Field(
        description="registrations, funding, declarations and calls for more research as non-claims"
    )
    reporting_similarity: float = Field(
        ge=0.0,
        le=1.0,
        description="with reporting_negatives, a claim-role sentence at least this close to a reporting "
        "line (TF-IDF cosine) is not learnt as a claim",
    )
    max_sentences: int | None = Field(gt=0, description="cap on training sentences, whole abstracts kept")
    regularization: float = Field(gt=0.0, description="inverse L2 strength C of the logistic regression")
    calibration_fraction: float = Field(gt=0.0, lt=1.0, description="abstracts that fit the calibration")
    held_out_fraction: float = Field(gt=0.0, lt=1.0, description="abstracts kept for the quality report")
    method: Literal["sigmoid", "isotonic"]
    seed: int
    batch_size: int = Operational(gt=0)

    @model_validator(mode="after")
    def _consistent(self) -> ClaimModelSettings:
        if self.calibration_fraction + self.held_out_fraction >= 0.9:
            raise ValueError("calibration_fraction + held_out_fraction must leave at least 10% to fit on")
        if set(self.claim_roles) & set(self.non_claim_roles):
            raise ValueError("a role cannot be in both claim_roles and non_claim_roles")
        return self


def _part(group: str, settings: ClaimModelSettings) -> str:
    if group in (META_TEXT_GROUP, REPORTING_GROUP):
        return "fit"
    draw = group_draw(settings.seed, group)
    if draw < settings.held_out_fraction:
        return "held_out"
    if draw < settings.held_out_fraction + settings.calibration_fraction:
        return "calibration"
    return "fit"


class ClaimModel(FittedModel):
    """P(claim) of sentences: a fitted classifier whose score goes through a fitted calibration."""

    FORMAT = FORMAT
    STATE = ("vectorizer", "classifier")
    settings: ClaimModelSettings

    def __init__(
        self,
        settings: ClaimModelSettings,
        calibration: Calibration,
        held_out: dict,  # probability, label and role per held-out sentence
        fitted: dict,
        vectorizer,  # None for embedding features only
        classifier,
    ):
        super().__init__(settings, calibration, held_out, fitted)
        self.vectorizer = vectorizer
        self.classifier = classifier
        self.key = ""  # digest of training data, settings and fitting code (set by fit_claim_model)

    def _features(self, sentences: Sequence[str]):
        from scipy import sparse

        parts = []
        if self.vectorizer is not None:
            parts.append(self.vectorizer.transform(sentences))
        if self.settings.features != "tfidf":
            parts.append(
                sparse.csr_matrix(encode(self.settings.encoder, sentences, self.settings.batch_size))
            )
        return parts[0] if len(parts) == 1 else sparse.hstack(parts, format="csr")

    def raw_scores(self, sentences: Sequence[str]) -> np.ndarray:
        """The classifier's uncalibrated P(claim)."""
        return self.classifier.predict_proba(self._features(list(sentences)))[:, 1]

    def probabilities(self, sentences: Sequence[str]) -> list[float]:
        if not sentences:
            return []
        return [float(p) for p in self.calibration(self.raw_scores(sentences))]

    def quality(self, threshold: float) -> dict:
        """Held-out ROC-AUC, Brier, log loss, ECE against the training labels, and what
        ``threshold`` keeps: precision and recall, and the pass rate of each role."""
        probabilities = np.asarray(self.held_out["probability"], dtype=float)
        labelled = np.asarray([label is not None for label in self.held_out["label"]])
        labels = np.asarray([int(label or 0) for label in self.held_out["label"]])
        report = calibration_report(probabilities[labelled], labels[labelled])
        report.update(_at_threshold(probabilities[labelled], labels[labelled], threshold))
        roles = np.asarray(self.held_out["role"])
        report["pass_rate_by_role"] = {
            role.value: round(float(meets_threshold(probabilities[roles == role.value], threshold).mean()), 4)
            for role in Role
            if (roles == role.value).any()
        }
        report.update(method=self.calibration.method, features=self.settings.features, fitted_on=self.fitted)
        return report

    def evaluate(self, examples: Sequence[LabelledSentence], threshold: float) -> dict:
        """ROC-AUC on labelled sentences (e.g. expert labels), and the operating point at ``threshold``."""
        labelled = [e for e in examples if e.claim is not None]
        probabilities = np.asarray(self.probabilities([e.text for e in labelled]))
        labels = np.asarray([int(e.claim) for e in labelled])
        report = calibration_report(probabilities, labels)
        report.update(_at_threshold(probabilities, labels, threshold))
        return report


def _at_threshold(probabilities: np.ndarray, labels: np.ndarray, threshold: float) -> dict:
    """Precision and recall at ``threshold``, and the highest threshold that keeps 90% recall."""
    kept = meets_threshold(probabilities, threshold)
    positives = labels == 1
    ranked = np.sort(probabilities[positives])[::-1]
    threshold_for_recall = float(ranked[int(np.ceil(0.9 * len(ranked))) - 1]) if len(ranked) else None
    at_recall = (
        meets_threshold(probabilities, threshold_for_recall) if threshold_for_recall is not None else None
    )
    return {
        "threshold": threshold,
        "pass_rate": round(float(kept.mean()), 4) if kept.size else None,
        "precision": round(float(positives[kept].mean()), 4) if kept.any() else None,
        "recall": round(float(kept[positives].mean()), 4) if positives.any() else None,
        "threshold_for_recall_0_9": round(threshold_for_recall, 4)
        if threshold_for_recall is not None
        else None,
        "precision_at_recall_0_9": round(float(positives[at_recall].mean()), 4)
        if at_recall is not None
        else None,
    }


def training_examples(abstracts: Sequence[Abstract], settings: ClaimModelSettings) -> list[LabelledSentence]:
    """The labelled sentences a model is fitted on: roles or the labelled file, capped, plus meta-text."""
    if settings.labelled_file is not None:
        examples = read_labelled_claims(settings.labelled_file)
        log.info("claim model: %d labelled sentences read from %s", len(examples), settings.labelled_file)
    else:
        examples = examples_from_roles(abstracts, settings.claim_roles, settings.non_claim_roles)
    if settings.max_sentences is not None and len(examples) > settings.max_sentences:
        by_group: dict[str, list[LabelledSentence]] = {}
        for example in examples:
            by_group.setdefault(example.group, []).append(example)
        kept: list[LabelledSentence] = []
        # whole abstracts, in a seeded order that does not depend on the corpus order
        for group in sorted(by_group, key=lambda g: group_draw(settings.seed, g)):
            if len(kept) + len(by_group[group]) > settings.max_sentences:
                break
            kept += by_group[group]
        log.info("claim model: %d of %d sentences kept (max_sentences)", len(kept), len(examples))
        examples = kept
    if settings.meta_text_negatives:
        examples = examples + [
            LabelledSentence(text, False, META_TEXT_GROUP) for text in meta_text_examples()
        ]
    if settings.reporting_negatives:
        lines = reporting_examples()
        examples, relabelled = without_reporting_claims(examples, lines, settings.reporting_similarity)
        log.info(
            "claim model: %d claim-role sentences read like reporting lines, not learnt as claims", relabelled
        )
        examples = examples + [LabelledSentence(text, False, REPORTING_GROUP) for text in lines]
    return examples


def claim_model_key(examples: Sequence[LabelledSentence], settings: ClaimModelSettings) -> str:
    """The cache key: training examples, fitting code, scikit-learn version, encoder, settings."""
    encoder = settings.encoder if settings.features != "tfidf" else None
    return model_key(
        FORMAT, __file__, encoder, settings, [[e.text, e.claim, e.group, e.role] for e in examples]
    )


def fit_claim_model(
    abstracts: Sequence[Abstract], settings: ClaimModelSettings, cache_dir: Path | None = None
) -> ClaimModel:
    """The claim model of ``abstracts`` (or of the labelled file): from the cache, or fitted and cached."""
    examples = training_examples(abstracts, settings)
    key = claim_model_key(examples, settings)
    model = fit_or_load(
        "claim",
        key,
        settings,
        lambda: _fit(_split(examples, settings), settings),
        ClaimModel,
        cache_dir,
        binary=True,
    )
    model.key = key
    return model


def _split(
    examples: Sequence[LabelledSentence], settings: ClaimModelSettings
) -> dict[str, list[LabelledSentence]]:
    """The fitting, calibration and held-out parts, each with claims and non-claims."""
    parts: dict[str, list[LabelledSentence]] = {"fit": [], "calibration": [], "held_out": []}
    for example in examples:
        parts[_part(example.group, settings)].append(example)
    for name, part in parts.items():
        if len({e.claim for e in part if e.claim is not None}) < 2:
            raise InputFormatError(
                settings.labelled_file or "abstracts",
                f"the claim model's {name} part has {len(part)} sentences and not both claims and non-claims "
                "(too few abstracts for the split)",
            )
    return parts


def _fit(parts: dict[str, list[LabelledSentence]], settings: ClaimModelSettings) -> ClaimModel:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    fit = [e for e in parts["fit"] if e.claim is not None]
    log.info(
        "claim model: fitting %s features on %d sentences (%d claims); %d calibrate, %d held out",
        settings.features,
        len(fit),
        sum(e.claim for e in fit),
        len(parts["calibration"]),
        len(parts["held_out"]),
    )
    vectorizer = None
    if settings.features != "embedding":
        vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
        vectorizer.fit([e.text for e in fit])
    classifier = LogisticRegression(C=settings.regularization, max_iter=3000, random_state=settings.seed)
    model = ClaimModel(settings, Calibration("sigmoid"), {}, {}, vectorizer, classifier)
    classifier.fit(model._features([e.text for e in fit]), [int(e.claim) for e in fit])
    calibrate = [e for e in parts["calibration"] if e.claim is not None]
    model.calibration = fit_calibration(
        model.raw_scores([e.text for e in calibrate]), [int(e.claim) for e in calibrate], settings.method
    )
    held_out = parts["held_out"]
    model.held_out = {
        "probability": [round(p, 6) for p in model.probabilities([e.text for e in held_out])],
        "label": [None if e.claim is None else int(e.claim) for e in held_out],
        "role": [e.role.value if e.role else None for e in held_out],
    }
    model.fitted = {
        "source": settings.labelled_file or "roles",
        "sentences": len(fit),
        "claims": sum(e.claim for e in fit),
        "meta_text_negatives": sum(e.group == META_TEXT_GROUP for e in fit),
        "reporting_negatives": sum(e.group == REPORTING_GROUP for e in fit),
        "calibration_sentences": len(calibrate),
        "held_out_sentences": sum(e.claim is not None for e in held_out),
    }
    return model
