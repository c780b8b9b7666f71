"""Releasing a SciCon build: the pipeline's record committed and tagged, its data pushed to a DVC
remote and pulled back from a fresh clone before the tag is made.

A release is one commit: ``dvc.lock``, the parameter files and every output DVC keeps in git
(``cache: false`` outputs, metrics and plots: ``reports/``, ``metrics/``, ``plots/``, ``code/``),
so ``dvc status`` at the tag is up to date; the released outputs (the SciCon splits and card,
the judge) are on the named remote. With the repository's own store (``release/store``, the
default remote, read by a relative path) the commit also carries the store's objects and the
pointers of the ``release/`` DVC project, which ``dvc pull`` there fetches on any clone, offline.

    python -m scicon.release cut scicon-v3 --remote store
    python -m scicon.release verify scicon-v3 --remote store
    python -m scicon.release merge scicon-v3
"""
