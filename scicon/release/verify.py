"""A release checked as its users get it: a fresh clone of the release commit, ``dvc pull`` from
the remote, and every pulled file's MD5 against the hashes ``dvc.lock`` records."""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from scicon.release.pointers import RELEASE_PROJECT
from scicon.release.remote import HASH_NAME, Remote, check_readable
from scicon.release.workspace import ReleaseError, dvc, dvc_repo, git

log = logging.getLogger(__name__)

CONFIG_LOCAL = Path(".dvc/config.local")


def file_md5(path: Path) -> str:
    digest = hashlib.md5()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def mismatches(project: Path, outputs: Sequence[str]) -> list[str]:
    """Each released file of ``project`` whose bytes differ from its lock (or ``.dvc``) hash,
    or that is missing; empty when every file is what the release recorded."""
    found: list[str] = []
    with dvc_repo(project) as repo:
        cache = repo.cache.local
        for output in outputs:
            wanted = (project / output).resolve()
            out = next(
                (o for s in repo.index.stages for o in s.outs if Path(o.fs_path).resolve() == wanted), None
            )
            if out is None:
                found.append(f"{output}: not an output of {project}")
                continue
            oid = out.hash_info.value
            if not oid.endswith(".dir"):
                found += _compare(project / output, oid, output)
                continue
            manifest = Path(cache.oid_to_path(oid))
            if not manifest.is_file() or file_md5(manifest) != oid.removesuffix(".dir"):
                found.append(f"{output}: its manifest {oid} is missing or corrupt in the pulled cache")
                continue
            for entry in json.loads(manifest.read_text(encoding="utf-8")):
                found += _compare(
                    project / output / entry["relpath"], entry[HASH_NAME], f"{output}/{entry['relpath']}"
                )
    return found


def _compare(path: Path, expected: str, name: str) -> list[str]:
    if not path.is_file():
        return [f"{name}: missing"]
    actual = file_md5(path)
    return [] if actual == expected else [f"{name}: MD5 {actual}, the lock says {expected}"]


def verify_release(
    root: Path, revision: str, remote: Remote, outputs: Sequence[str], pointers: Sequence[str] = ()
) -> None:
    """Clone ``revision`` of ``root`` into a temporary folder, pull ``outputs`` from ``remote``
    and compare every file with the clone's ``dvc.lock``; with ``pointers`` (``release/<name>.dvc``
    files), ``dvc pull`` in the clone's ``release/`` project too. The clone gets the remote's
    credentials (the ``remote`` sections of ``.dvc/config.local``) and a cache of its own."""
    revision = git(root, "rev-parse", "--verify", f"{revision}^{{commit}}").stdout.strip()
    check_readable(root, remote)
    scratch = Path(tempfile.mkdtemp(prefix="scicon-release-verify-"))
    try:
        clone = scratch / "clone"
        git(scratch, "clone", "--quiet", "--no-checkout", str(root), str(clone))
        git(clone, "checkout", "--quiet", "--detach", revision)
        _copy_credentials(root, clone)
        dvc(clone, "config", "--local", "cache.dir", str(clone / ".dvc" / "cache"))
        log.info(
            "verifying %s: pulling %s from %s into a fresh clone", revision, ", ".join(outputs), remote.name
        )
        dvc(clone, "pull", "--remote", remote.name, *outputs)
        problems = mismatches(clone, outputs)
        if pointers:
            project = clone / RELEASE_PROJECT
            dvc(project, "pull")
            problems += [f"{RELEASE_PROJECT}/{p}" for p in mismatches(project, pointers)]
            status = dvc(project, "status", "--json").stdout.strip()
            if status not in ("", "{}"):
                problems.append(f"{RELEASE_PROJECT}/: dvc status after dvc pull: {status}")
        if problems:
            raise ReleaseError(
                f"{revision} pulled from {remote.name!r} into a fresh clone does not match its dvc.lock: "
                + "; ".join(problems)
            )
        log.info("verified: every released file of %s pulled from %s matches dvc.lock", revision, remote.name)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _copy_credentials(root: Path, clone: Path) -> None:
    """The remotes' settings a user keeps out of git (keys, passwords), and nothing else: a
    ``cache.dir`` there would let the clone read the maintainer's cache instead of the remote."""
    source = root / CONFIG_LOCAL
    if not source.is_file():
        return
    from configobj import ConfigObj

    local = ConfigObj(str(source))
    kept = ConfigObj()
    for section, values in local.items():
        if section.startswith("remote "):
            kept[section] = values
    kept.filename = str(clone / CONFIG_LOCAL)
    kept.write()
