"""Labelled NLI data for teachers and students: named public sources, their downloads and paths.

A folder laid out like the sources' own repositories (``labelled_root`` in params.yaml)
holds each set under its name; ``python -m scicon.labelled download <name> --root DIR``
fills it from the canonical locations, every file checked against its pinned SHA-256.
The sets are read by the benchmark loaders (:mod:`scicon.readers`).
"""
