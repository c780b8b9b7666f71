"""Models that scikit-learn fits on the corpus, cached by content: the same-topic calibration
(:mod:`scicon.fitted.topic_model`) and the claim classifier (:mod:`scicon.fitted.claim_model`),
both fitted or loaded through :func:`scicon.fitted.base.fit_or_load`.

The constraints that threshold them (``similarity.embedding``, ``claim.trained``) live in
:mod:`scicon.constraints`; this package only fits, caches and applies the models.
"""
