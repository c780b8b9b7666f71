"""LoRA fine-tuning of contradiction classifiers on SciCon (:mod:`scicon.train.lora`; scoring:
:mod:`scicon.classifier`). Importing the package loads no torch: stages that only read its
parameters (:mod:`scicon.train.params`) start in a fraction of the time."""
