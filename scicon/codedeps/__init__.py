"""What each stage's code is, and what dvc.yaml must say of it; three modules, three jobs:

- :mod:`scicon.codedeps.closure`: the files a stage script imports or reads, found by
  reading the source, and their digest. The ``code`` stage writes one digest file per
  script (``python -m scicon.codedeps digests``); resumable stages (the evolve journal,
  the fitted-model cache) fold the digest into the key that decides whether an earlier
  result may be reused, so a code change recomputes instead of restoring old results.
- :mod:`scicon.codedeps.params_read`: the params keys a stage script reads and that can
  change its results.
- :mod:`scicon.codedeps.dvcfile`: ``check`` and ``write`` of dvc.yaml against the two above
  (``python -m scicon.codedeps check|write``).

A stage's run imports the first two at most; the dvc.yaml linter stays out of its code.
"""
