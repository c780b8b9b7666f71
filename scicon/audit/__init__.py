"""The expert-audit kit: a blinded sample of a SciCon build, its annotation files, and their scores.

The EvoNLI paper's quality claim (section 5.1) is an audit: a random sample of SciCon pairs,
judged by domain experts blinded to the algorithmic label, scored as agreement with that
label, majority-vote precision and inter-rater reliability. This package does the same
round trip for any build:

- :mod:`scicon.audit.sample` draws a seeded, stratified sample with stable item ids;
- :mod:`scicon.audit.blinded` writes one blinded file per annotator (CSV and a Label Studio
  task file) with the question in :mod:`scicon.audit.question`;
- :mod:`scicon.audit.annotations` reads the answers back (CSV and Label Studio exports,
  :mod:`scicon.audit.labelstudio`), validating ids, answers and duplicates;
- :mod:`scicon.audit.figures` holds the figures that go to ``reports/audit.json`` and
  :mod:`scicon.audit.report` the markdown page; the statistics (κ, AC1, Wilson and bootstrap
  intervals), the blinded ids and the Label Studio formats are the annotation foundation's,
  :mod:`scicon.annotation`.

:mod:`scicon.audit.export` and :mod:`scicon.audit.scoring` are the two steps as commands
(DVC stages ``audit_sample`` and ``audit_score``, or ``python -m scicon.audit``).
"""
