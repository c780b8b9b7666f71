"""Parameters of the teacher stage (`teacher` in params.yaml)."""

from __future__ import annotations

from pydantic import Field, field_validator, model_validator

from scicon.dataset.params import BuildSource
from scicon.params import Section
from scicon.readers.sets import LabelledSpec
from scicon.train.params import FinetuneParams

# The teacher is trained before the search runs, so it can learn from nothing the search makes.
_AFTER_EVOLVE = (BuildSource.EVONLI, BuildSource.EVONLI_NON_CONTRADICTION)


class TeacherRefine(Section):
    """A second training phase on in-domain judgements, from the weights the first phase left: the
    general NLI sets teach what contradiction is, the judgements which edits of *this* evidence
    contradict it (docs/judgements.md). The teacher is calibrated on the judgements' held-out
    abstracts, so ``target`` is a probability of what annotators would call a contradiction."""

    labelled: dict[str, LabelledSpec] = Field(min_length=1, description="the in-domain labelled sets")
    dev_fraction: float = Field(gt=0.0, lt=1.0, description="share of their abstracts held out, by PMID")
    max_steps: int = Field(gt=0)
    eval_steps: int = Field(gt=0)
    learning_rate: float = Field(gt=0.0)


class TeacherParams(Section):
    train: bool = Field(
        description="train the teacher; false writes a folder marked untrained, for a run whose "
        "contradiction judge is the entailment stage's three-way one (entailment.head: three_way)"
    )
    sources: tuple[BuildSource, ...] = Field(description="DAG data to learn from (empty: labelled data only)")
    operators: tuple[str, ...] | None = Field(description="rule operators whose edits teach (null: all)")
    labelled: dict[str, LabelledSpec] = Field(
        description="labelled NLI sets (loader kind, path under labelled_root, options, weight, cap) — "
        "never a benchmark's evaluation split"
    )
    dev_fraction: float = Field(gt=0.0, lt=1.0, description="share of abstracts held out, grouped by PMID")
    seed: int
    training: FinetuneParams
    refine: TeacherRefine | None = Field(description="a second phase on in-domain judgements (null: none)")

    @model_validator(mode="after")
    def _something_to_learn(self) -> TeacherParams:
        if self.train and not self.sources and not self.labelled:
            raise ValueError("sources and labelled are both empty: the teacher has nothing to learn from")
        return self

    @field_validator("sources")
    @classmethod
    def _before_evolve(cls, sources: tuple[BuildSource, ...]) -> tuple[BuildSource, ...]:
        late = [s.value for s in sources if s in _AFTER_EVOLVE]
        if late:
            raise ValueError(f"{', '.join(late)}: the teacher is trained before evolve runs")
        if len(set(sources)) != len(sources):
            raise ValueError("sources are listed more than once")
        return sources
