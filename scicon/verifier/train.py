"""Training the verifier: the entailment judge's two phases on plain pairs, three-way, checkpointed
into the SciCon cache so that an interrupted run resumes where it stopped."""

from __future__ import annotations

import shutil
from pathlib import Path

from pydantic import model_validator

from scicon.entailment.params import EntailmentParams
from scicon.entailment.train import entailment_data, train_entailment
from scicon.paths import cache_root
from scicon.readers.sets import GoldSpec
from scicon.teacher.gold import gold_figures
from scicon.teacher.train import TeacherResult

SECTION = "verifier"


class VerifierParams(EntailmentParams):
    """``verifier`` in params.yaml: the entailment judge's settings, for a three-way judge of plain pairs."""

    @model_validator(mode="after")
    def _reads_plain_three_way(self) -> VerifierParams:
        if self.head != "three_way":
            raise ValueError("verifier.head must be three_way: the gate reads its P(contradiction)")
        if self.edits.marked:
            raise ValueError(
                "verifier.edits.marked must be false: the verifier reads plain pairs, as a user's pair "
                "arrives, so that it cannot learn that a marked edit means contradiction"
            )
        return self


def default_checkpoints() -> Path:
    return cache_root() / "checkpoints" / SECTION


def train_verifier(
    params: VerifierParams, labelled_root: str | None, output_dir: Path, gold: GoldSpec, checkpoints: Path
) -> TeacherResult:
    """Train, calibrate and save the verifier; its metrics with its gold figures and throughput."""
    data = entailment_data(params, labelled_root, section=SECTION)
    result = train_entailment(data, params, output_dir, checkpoints=checkpoints, section=SECTION)
    # the checkpoints only serve an interrupted run; a finished one leaves none (gigabytes for MPNet)
    shutil.rmtree(checkpoints, ignore_errors=True)
    training = result.metrics["training"]
    examples = training["train_examples"]
    result.metrics["throughput_last_phase"] = {
        "seconds": training["train_seconds"],
        "seconds_per_step": training["seconds_per_step"],
        "steps": training["steps"],
        "resumed_from_step": training["resumed_from_step"],
        "examples_per_second": round(
            training["effective_batch_size"]
            * max(training["steps"] - training["resumed_from_step"], 0)
            / max(training["train_seconds"], 1e-9),
            2,
        ),
        "train_examples": examples,
    }
    result.metrics["gold"] = gold_figures(output_dir, gold)
    return result
