"""Reading annotators' answers: what every annotation round of the project is built from (the
project's annotators are language-model readers, each alone and blind to how a pair was made;
the audit's are meant to be experts).

The expert audit (:mod:`scicon.audit`), the annotation rounds (:mod:`scicon.judgements`) and
the finder's review (:mod:`scicon.find.review`) each decide what to sample and what their figures
mean; how an item is blinded, how many gold controls a batch hides, how answers are read back and
scored is written once, here:

- :mod:`scicon.annotation.blinding`: blinded ids, seeded orders, annotator and file names;
- :mod:`scicon.annotation.controls`: the contradictions among a batch's gold controls, and an
  annotator's accuracy on them;
- :mod:`scicon.annotation.readback`: answer files (``item_id<TAB>label<TAB>garbled`` TSV, or a
  Label Studio export of the same fields) read and checked;
- :mod:`scicon.annotation.labelstudio`: Label Studio's task import and its export formats;
- :mod:`scicon.annotation.agreement`: Fleiss' κ, Gwet's AC1, unanimity, majority;
- :mod:`scicon.annotation.intervals`: a share with its Wilson interval and percentile bootstrap
  intervals, at the confidence level a params section gives.
"""
