"""Cutting a release: check, push, commit, pull back from a fresh clone, and only then tag."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from scicon.classifier_folder import untrained_reason
from scicon.params import lookup, read_params_file
from scicon.release.pointers import RELEASE_PROJECT, Released, write_pointers
from scicon.release.remote import check_writable, find_remote, push, relative_to
from scicon.release.verify import verify_release
from scicon.release.workspace import (
    ReleaseError,
    check_tag_is_new,
    check_up_to_date,
    check_workspace_clean,
    git,
    pipeline_record,
)

log = logging.getLogger(__name__)

DATASET = "data/scicon"  # the build stage's folder: the splits and the dataset card
# the judge EvoNLI searched against: the goal's classifier folder (models/entailment in the
# real-abstracts recipe, the pulled models/judge in the demo)
JUDGE_KEY = "evolve.settings.goal.classifier.model"


# the verifier the build's gate read (models/verifier in the real-abstracts recipe): released so
# that the recipe pulls it instead of training it again
VERIFIER_KEY = "build.verifier"


def default_released(params_file: Path) -> list[Released]:
    """The dataset, the judge EvoNLI searched against and, when the gate read a trained one, the
    verifier."""
    params = read_params_file(params_file)
    judge = lookup(params, JUDGE_KEY)
    if not judge:
        raise ReleaseError(
            f"{params_file}: {JUDGE_KEY} names no judge folder; give the outputs with --output"
        )
    released = [Released(DATASET, "scicon"), Released(str(judge), "judge")]
    verifier = lookup(params, VERIFIER_KEY)
    folder = params_file.parent / verifier if verifier else None
    if folder is not None and folder.is_dir() and untrained_reason(folder) is None:
        released.append(Released(str(verifier), "verifier"))
    return released


def cut_release(
    root: Path, tag: str, remote_name: str, released: Sequence[Released], message: str | None
) -> str:
    """The release commit, tagged ``tag``, its outputs on ``remote_name``; returns the commit."""
    outputs = [item.path for item in released]
    check_tag_is_new(root, tag)
    remote = find_remote(root, remote_name)
    store = relative_to(root, remote.in_repository) if remote.in_repository else None
    record = pipeline_record(root)
    # what the release writes itself, left over from an earlier run that stopped half-way
    own = [
        store,
        *(f"{RELEASE_PROJECT}/{item.name}.dvc" for item in released),
        f"{RELEASE_PROJECT}/.gitignore",
    ]
    committed = check_workspace_clean(root, record, allowed=own if store else ())
    check_up_to_date(root)
    check_writable(root, remote)

    push(root, remote, outputs)
    pointer_files: list[str] = []
    if store:
        pointer_files = write_pointers(root, tag, released)
        git(root, "add", "--all", "--", store, *pointer_files)
    if committed:
        log.info("committing the pipeline's record: %s", ", ".join(committed))
        git(root, "add", "--all", "--", *committed)
    if git(root, "diff", "--cached", "--quiet", check=False).returncode != 0:
        git(
            root,
            "commit",
            "--quiet",
            "-m",
            message or f"SciCon {tag}: dvc.lock, parameters and outputs kept in git",
        )
    commit = git(root, "rev-parse", "HEAD").stdout.strip()
    verify_release(root, commit, remote, outputs, pointers=[item.name for item in released] if store else ())
    where = store or remote.url  # the store by its path in the repository, not this machine's
    git(
        root,
        "tag",
        "--annotate",
        tag,
        "-m",
        f"SciCon {tag} (its data on the DVC remote {remote.name}: {where})",
        commit,
    )
    log.info("tagged %s at %s; publish it with `git push origin %s`", tag, commit[:12], tag)
    return commit
