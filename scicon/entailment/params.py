"""Parameters of the entailment stage (`entailment` in params.yaml)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from scicon.labelled.candidates import EditInput
from scicon.params import Section
from scicon.readers.sets import LabelledSpec
from scicon.teacher.params import TeacherRefine
from scicon.train.params import FinetuneParams


class EntailmentParams(Section):
    train: bool = Field(
        description="train the judge; false writes a folder marked untrained, which the pairs stage refuses"
    )
    head: Literal["entailment", "three_way"] = Field(
        description="entailment: entailment against the rest, read by the pairs stage; three_way: "
        "entailment / neutral / contradiction, one judge the pairs stage reads P(entailment) of and "
        "EvoNLI's goal and the evaluate stage P(contradiction) of, each calibrated on its own"
    )
    labelled: dict[str, LabelledSpec] = Field(
        min_length=1,
        description="labelled NLI sets with three-way labels (loader kind, path under labelled_root, "
        "options, weight, cap)",
    )
    dev_fraction: float = Field(gt=0.0, lt=1.0, description="share of premises held out, grouped")
    seed: int
    training: FinetuneParams
    refine: TeacherRefine | None = Field(
        description="a second phase on in-domain judgements, calibrated on their held-out abstracts "
        "(null: none)"
    )
    edits: EditInput = Field(description="how the judge learns edited pairs: marked, or plain like any other")
