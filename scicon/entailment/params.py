"""Parameters of the entailment stage (`entailment` in params.yaml)."""

from __future__ import annotations

from pydantic import Field

from scicon.params import Section
from scicon.readers.sets import LabelledSpec
from scicon.train.params import FinetuneParams


class EntailmentParams(Section):
    train: bool = Field(
        description="train the judge; false writes a folder marked untrained, which the pairs stage refuses"
    )
    labelled: dict[str, LabelledSpec] = Field(
        min_length=1,
        description="labelled NLI sets with three-way labels (loader kind, path under labelled_root, "
        "options, weight, cap); entailment is label 1, neutral and contradiction label 0",
    )
    dev_fraction: float = Field(gt=0.0, lt=1.0, description="share of premises held out, grouped")
    seed: int
    training: FinetuneParams
