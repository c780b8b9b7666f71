"""The release workspace: git and DVC commands, the pipeline's record, and the checks a release
makes before it writes anything."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scicon.errors import SciconError

log = logging.getLogger(__name__)

LOCK_FILE = "dvc.lock"


class ReleaseError(SciconError, RuntimeError):
    """A release refused or failed; the message says why and what to do."""


def run(command: Sequence[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(list(command), cwd=cwd, capture_output=True, text=True)
    if check and result.returncode != 0:
        said = "\n".join(part.strip() for part in (result.stdout, result.stderr) if part.strip())
        raise ReleaseError(f"`{shlex.join(command)}` failed in {cwd} (exit {result.returncode}):\n{said}")
    return result


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return run(["git", *args], root, check)


def dvc(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """The ``dvc`` command of this interpreter, as a user runs it (its own output and errors)."""
    return run([sys.executable, "-m", "dvc", *args], root, check)


@contextlib.contextmanager
def dvc_repo(root: Path):
    """DVC's own view of the project, opened from inside it as the command line does."""
    from dvc.repo import Repo

    with contextlib.chdir(root), Repo(str(root)) as repo:
        yield repo


def repository_root(start: Path) -> Path:
    return Path(git(start, "rev-parse", "--show-toplevel").stdout.strip())


@dataclass(frozen=True)
class Record:
    """What a run of the pipeline leaves in git: the lock and parameter files, and every output
    DVC does not cache (reports, metrics, plots, code digests). ``cached`` are the outputs in
    DVC's cache, whose folders' ``.gitignore`` DVC maintains."""

    files: tuple[str, ...]
    uncached: tuple[str, ...]
    cached: tuple[str, ...]

    def holds(self, path: str) -> bool:
        """Whether a changed path belongs to the record (and so is committed with the release)."""
        if path in self.files:
            return True
        if any(path == out or path.startswith(f"{out}/") for out in self.uncached):
            return True
        ignores = {_relative(os.path.join(os.path.dirname(out), ".gitignore")) for out in self.cached}
        return path in ignores


def _relative(path: str) -> str:
    return os.path.normpath(path).replace(os.sep, "/")


def pipeline_record(root: Path) -> Record:
    from dvc.dependency.param import ParamsDependency

    files: set[str] = set()
    uncached: set[str] = set()
    cached: set[str] = set()
    with dvc_repo(root) as repo:
        for stage in repo.index.stages:
            stage_file = _relative(os.path.relpath(stage.path, root))
            if stage_file.endswith(".dvc"):
                files.add(stage_file)
            else:
                files.add(_relative(os.path.join(os.path.dirname(stage_file), LOCK_FILE)))
            for dep in stage.deps:
                if isinstance(dep, ParamsDependency):
                    files.add(_relative(os.path.relpath(dep.fs_path, root)))
            for out in stage.outs:
                name = _relative(os.path.relpath(out.fs_path, root))
                (cached if out.use_cache else uncached).add(name)
    return Record(tuple(sorted(files)), tuple(sorted(uncached)), tuple(sorted(cached)))


def changed_paths(root: Path) -> list[str]:
    """Every path git sees changed, staged or untracked, relative to the repository root."""
    listed = git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames").stdout
    return sorted(entry[3:] for entry in listed.split("\0") if entry)


def check_tag_is_new(root: Path, tag: str) -> None:
    found = git(root, "rev-parse", "--verify", "--quiet", f"refs/tags/{tag}", check=False)
    if found.returncode == 0:
        raise ReleaseError(
            f"tag {tag} exists (commit {found.stdout.strip()[:12]}): a release is never moved; "
            "name the new one differently"
        )


def check_workspace_clean(root: Path, record: Record, allowed: Sequence[str] = ()) -> list[str]:
    """The record's changes, to be committed with the release; anything else changed refuses."""
    changed = changed_paths(root)
    outside = [
        path
        for path in changed
        if not record.holds(path) and not any(path == a or path.startswith(f"{a}/") for a in allowed)
    ]
    if outside:
        shown = ", ".join(outside[:10]) + (f" and {len(outside) - 10} more" if len(outside) > 10 else "")
        raise ReleaseError(
            f"the workspace has changes outside the pipeline's record: {shown}. Commit or stash "
            "them first (a release commits only dvc.lock, the parameter files and the outputs DVC "
            "keeps in git)"
        )
    return [path for path in changed if path not in outside]


def check_up_to_date(root: Path) -> None:
    stale = json.loads(dvc(root, "status", "--json").stdout or "{}")
    if stale:
        described = "; ".join(f"{stage}: {_describe(changes)}" for stage, changes in sorted(stale.items()))
        raise ReleaseError(
            f"`dvc status` is not up to date ({described}). Run `dvc repro` (or apply the "
            "experiment to release) so that dvc.lock describes the outputs"
        )


def _describe(changes) -> str:
    parts = []
    for change in changes if isinstance(changes, list) else [changes]:
        if isinstance(change, dict):
            for kind, detail in change.items():
                names = ", ".join(detail) if isinstance(detail, dict) else str(detail)
                parts.append(f"{kind} {names}")
        else:
            parts.append(str(change))
    return ", ".join(parts)
