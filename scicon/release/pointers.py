"""The ``release/`` DVC project: pointers to the latest release's outputs, by the hashes of the
release's ``dvc.lock``, and the repository's own store they are pulled from.

The repository's ``dvc.yaml`` and ``dvc.lock`` stay the offline demo's on the main branch, so a
release's outputs cannot be its root project's outputs there. ``release/`` is a separate DVC
project (DVC leaves a nested project alone: the root's ``dvc status`` never sees it) whose only
outputs are these pointers, so ``cd release && dvc pull`` fetches the release and ``dvc status``
there is up to date on any clone of any branch that carries them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from scicon.release.workspace import ReleaseError, dvc_repo, git

log = logging.getLogger(__name__)

RELEASE_PROJECT = "release"


@dataclass(frozen=True)
class Released:
    """One released output: its path in the pipeline and its name in ``release/``."""

    path: str
    name: str

    @classmethod
    def parse(cls, text: str) -> Released:
        path, _, name = text.partition("=")
        path = path.strip().rstrip("/")
        return cls(path, name.strip() or Path(path).name)


def write_pointers(root: Path, tag: str, released: Sequence[Released]) -> list[str]:
    """``release/<name>.dvc`` for each output, with the hash, size and file count its lock
    entry records, and ``release/.gitignore`` for the pulled folders. Returns the files written."""
    project = root / RELEASE_PROJECT
    if not (project / ".dvc").is_dir():
        raise ReleaseError(
            f"{project} is not a DVC project: the repository's store needs it "
            f"(`cd {RELEASE_PROJECT} && dvc init --subdir`, its default remote the store)"
        )
    written = []
    with dvc_repo(root) as repo:
        for item in released:
            out = _locked_output(repo, root, item.path)
            entry = {
                "md5": out.hash_info.value,
                "size": out.meta.size,
                "hash": "md5",
                "path": item.name,
            }
            if out.meta.nfiles is not None:
                entry["nfiles"] = out.meta.nfiles
            pointer = {
                "outs": [entry],
                "meta": {"release": tag, "source": item.path},
            }
            path = project / f"{item.name}.dvc"
            header = f"# {item.path} of SciCon {tag} in the repository's store (python -m scicon.release)\n"
            path.write_text(header + yaml.safe_dump(pointer, sort_keys=False), encoding="utf-8")
            written.append(path)
    ignore = project / ".gitignore"
    # the folders of earlier releases' pointers under other names stay ignored too
    kept = ignore.read_text(encoding="utf-8").splitlines() if ignore.is_file() else []
    lines = dict.fromkeys([*kept, *(f"/{item.name}" for item in released)])
    ignore.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return [str(p.relative_to(root)) for p in [*written, ignore]]


def _locked_output(repo, root: Path, output: str):
    wanted = (root / output).resolve()
    for stage in repo.index.stages:
        for out in stage.outs:
            if Path(out.fs_path).resolve() == wanted and out.hash_info.value:
                return out
    raise ReleaseError(f"{output} has no hash in dvc.lock")


def merge_release(root: Path, tag: str) -> None:
    """Bring a release's store and pointers (``release/``) onto the current branch, with the
    release commit in its history, keeping the branch's own pipeline record: main stays the
    offline demo and ``cd release && dvc pull`` fetches the release from any clone of it."""
    if git(root, "status", "--porcelain", "--untracked-files=no").stdout.strip():
        raise ReleaseError(
            "the workspace has uncommitted changes: commit or stash them before merging a release"
        )
    if git(root, "rev-parse", "--verify", "--quiet", f"refs/tags/{tag}", check=False).returncode != 0:
        raise ReleaseError(f"no tag {tag}")
    git(root, "merge", "--quiet", "--no-ff", "--no-commit", "--strategy=ours", tag)
    git(root, "checkout", tag, "--", RELEASE_PROJECT)
    git(
        root,
        "commit",
        "--quiet",
        "-m",
        f"Merge SciCon {tag}: its store and pointers in {RELEASE_PROJECT}/ "
        "(`cd release && dvc pull`); this branch's params, dvc.lock and outputs unchanged",
    )
    log.info(
        "merged %s: `cd %s && dvc pull` fetches it; `dvc checkout` restores this branch's outputs",
        tag,
        RELEASE_PROJECT,
    )
