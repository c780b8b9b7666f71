"""LoRA fine-tuning of contradiction classifiers on SciCon (:mod:`scicon.train.lora`; scoring:
:mod:`scicon.classifier`). The package itself imports nothing, so that a stage that only reads
its parameters (:mod:`scicon.train.params`) does not load torch."""
