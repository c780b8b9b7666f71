"""A trained teacher: a sequence-classification model's P(contradiction) — the paper's "Cross
Encoder" ablation (Table 2), the teacher the DAG trains, or a student of an earlier round.

Any folder :class:`scicon.classifier.ContradictionClassifier` reads works: what the teacher
and finetune stages save (calibrated when the folder holds ``calibration.json``, so that
``target`` is a threshold on a probability) or a plain Hugging Face NLI cross-encoder.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from scicon.assembly_context import AssemblyContext
from scicon.backbones.cache import weights_identity
from scicon.classifier import ContradictionClassifier
from scicon.errors import ParamsError
from scicon.goal import GOALS
from scicon.io import hash_file
from scicon.params import Section


class ClassifierGoal(ContradictionClassifier):
    """A classifier folder as the teacher, with its identity: its weights and calibrations."""

    def __init__(self, folder: str, contradiction_label: str, identity: dict):
        super().__init__(folder, contradiction_label)
        self.identity = identity

    def models(self) -> dict[str, object]:
        return {"classifier": self.identity}


class ClassifierGoalSettings(Section):
    model: str | None = Field(description="a classifier folder (the teacher stage's, or any NLI model)")
    contradiction_label: str = Field(
        min_length=1, description="that model's contradiction label (name or index)"
    )


@GOALS.register(
    "classifier",
    settings=ClassifierGoalSettings,
    description="a sequence-classification model",
    folder_setting="model",  # the setting `evolve --teacher FOLDER` fills (self-training)
)
def classifier_goal(settings: ClassifierGoalSettings, context: AssemblyContext) -> ClassifierGoal:
    if not settings.model:
        raise ParamsError("evolve.settings.goal.classifier.model: the classifier goal needs a model folder")
    # the calibrations are part of what the teacher answers, so part of its identity
    calibrations = sorted(Path(settings.model).glob("calibration*.json"))
    identity = {
        "weights": weights_identity(settings.model, context.cache),
        "calibration": "".join(hash_file(path)[0] for path in calibrations) or None,
    }
    return ClassifierGoal(settings.model, settings.contradiction_label, identity)
