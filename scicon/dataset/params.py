"""Parameters of the build stage (`build` in params.yaml) and the sources it can use."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, field_validator, model_validator

from scicon.io import read_id_list
from scicon.params import Probability, Section
from scicon.readers.sets import LabelledSpec


class BuildSource(StrEnum):
    """Where SciCon rows come from; ``build.sources`` lists the ones to use.

    Rule negatives come in two forms (see :mod:`scicon.dataset.sources`): ``self``
    pairs an edit with the sentence it was made from, ``cross`` pairs an edit of a
    pair's sentence2 with that pair's sentence1.
    """

    EVONLI = "evonli"  # evolve: accepted pairs with target contradiction (label 1)
    EVONLI_NON_CONTRADICTION = "evonli_non_contradiction"  # evolve: target non_contradiction (label 0)
    ORIGINAL = "original"  # pairs: the unmutated entailing pairs (label 0)
    RULES_SELF = "rules_self"  # negatives: a sentence and its own rule negation (label 1)
    RULE_CONTROLS_SELF = "rule_controls_self"  # negatives: a sentence and its label-preserving edit (label 0)
    RULES_CROSS = "rules_cross"  # negatives: sentence1 and the rule-negated sentence2 (label 1)
    RULE_CONTROLS_CROSS = "rule_controls_cross"  # negatives: sentence1 and an edit of sentence2 (label 0)
    LABELLED = "labelled"  # build.labelled: public labelled NLI sets, contradiction 1, the rest 0


# Names of earlier releases, and what they are called now (a hint, not a silent alias:
# "rules" used to mean the self form, which is now a choice to make knowingly).
RENAMED_SOURCES = {"rules": BuildSource.RULES_SELF, "rule_controls": BuildSource.RULE_CONTROLS_SELF}


class BuildParams(Section):
    sources: tuple[BuildSource, ...] = Field(min_length=1)
    dev_fraction: float = Field(ge=0.0, lt=1.0)
    test_fraction: float = Field(ge=0.0, lt=1.0)
    seed: int
    hypothesis_only_baseline: bool
    # Labelled NLI sets (paths under labelled_root) read by the source `labelled`, with their caps
    # and weights, as the teacher reads its own: the student can learn from what the judge learnt.
    labelled: dict[str, LabelledSpec]
    held_out: tuple[str, ...] = Field(
        description="files of abstract ids (PMIDs or PMCIDs) kept out of every training set: their rows "
        "go to the test split whatever the hash says (empty: none)"
    )

    # The gate every generated contradiction passes (scicon.dataset.gate), cheapest check first.
    precision_reads: str | None = Field(
        description="annotators' reads of generated pairs on training articles (the gold format of "
        "`python -m scicon.judgements read`): each source's precision (null: not gated by precision)"
    )
    min_precision: float = Field(
        ge=0.0, le=1.0, description="a rule operator or EvoNLI whose read precision is below this is left out"
    )
    reads_needed: int = Field(ge=1, description="reads a source needs before its precision can leave it out")
    naturalness: str = Field(
        description="the naturalness check's folder (the naturalness stage's; marked untrained: no check)"
    )
    max_garbled: float = Probability
    verifier: str = Field(
        description="a classifier folder the search never queried, reading plain pairs (the verifier "
        "stage's; marked untrained: every generated contradiction the other gates pass is kept)"
    )
    min_verifier: float = Probability

    @field_validator("sources", mode="before")
    @classmethod
    def _renamed_sources(cls, sources: object) -> object:
        for name in sources if isinstance(sources, list | tuple) else ():
            if name in RENAMED_SOURCES:
                cross = "rules_cross" if name == "rules" else "rule_controls_cross"
                raise ValueError(
                    f"{name!r} is now {RENAMED_SOURCES[name].value!r} (a sentence paired with its own "
                    f"edit); {cross!r} pairs sentence1 with the edited sentence2"
                )
        return sources

    @field_validator("held_out", mode="before")
    @classmethod
    def _one_file_is_a_list(cls, held_out: object) -> object:
        # `-S build.held_out=FILE` names one file; null keeps nothing out
        if held_out is None:
            return ()
        return (held_out,) if isinstance(held_out, str) else held_out

    def held_out_ids(self) -> frozenset[str]:
        """The abstracts of every ``held_out`` file."""
        return frozenset().union(*(read_id_list(path) for path in self.held_out))

    @field_validator("sources")
    @classmethod
    def _distinct_sources(cls, sources: tuple[BuildSource, ...]) -> tuple[BuildSource, ...]:
        if len(set(sources)) != len(sources):
            raise ValueError("sources are listed more than once")
        return sources

    @model_validator(mode="after")
    def _labelled_source_has_sets(self) -> BuildParams:
        if BuildSource.LABELLED in self.sources and not self.labelled:
            raise ValueError("sources lists 'labelled' but build.labelled names no labelled set")
        return self

    @model_validator(mode="after")
    def _fractions_leave_training_data(self) -> BuildParams:
        if self.dev_fraction + self.test_fraction >= 1.0:
            raise ValueError("dev_fraction + test_fraction must leave a training split (sum below 1)")
        return self
