"""The DVC remote a release goes to: configured, writable, and holding every object of the
released outputs whole."""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scicon.release.workspace import ReleaseError, dvc, dvc_repo

log = logging.getLogger(__name__)

HASH_NAME = "md5"  # DVC 3's content addressing (files/md5/<2>/<30>)


@dataclass(frozen=True)
class Remote:
    name: str
    url: str
    # the folder of a remote that lies inside the repository (its objects are committed)
    in_repository: Path | None


@dataclass(frozen=True)
class StoredObject:
    """One object of a released output in DVC's cache: a file, or a folder's manifest (``.dir``)."""

    oid: str
    size: int
    output: str


def find_remote(root: Path, name: str) -> Remote:
    with dvc_repo(root) as repo:
        remotes = repo.config["remote"]
        if name not in remotes:
            known = ", ".join(sorted(remotes)) or "none"
            raise ReleaseError(
                f"no DVC remote named {name!r} (configured: {known}); add it with "
                f"`dvc remote add {name} URL` and its credentials with `dvc remote modify --local`"
            )
        url = remotes[name]["url"]
        remote = repo.cloud.get_remote(name)
        inside = None
        protocol = remote.fs.protocol
        if "local" in ((protocol,) if isinstance(protocol, str) else tuple(protocol)):
            folder = Path(remote.path).resolve()
            if folder.is_relative_to(Path(root).resolve()):
                inside = folder
    return Remote(name, url, inside)


def check_writable(root: Path, remote: Remote) -> None:
    """Write and delete a probe file on the remote: a read-only server, a missing folder that
    cannot be made or refused credentials stop the release here, before anything is pushed."""
    with dvc_repo(root) as repo:
        target = repo.cloud.get_remote(remote.name)
        fs, path = target.fs, target.path
        probe = fs.join(path, f".scicon-release-probe-{uuid.uuid4().hex}")
        try:
            fs.makedirs(path, exist_ok=True)
            with fs.open(probe, "wb") as handle:
                handle.write(b"scicon release probe\n")
            fs.remove(probe)
        except Exception as error:  # every filesystem raises its own kind; all mean "cannot write"
            raise ReleaseError(
                f"cannot write to remote {remote.name!r} ({remote.url}): {type(error).__name__}: "
                f"{error or 'no detail'}. Check that it exists, that it accepts uploads and its "
                f"credentials (`dvc remote modify --local {remote.name} ...`)"
            ) from error


def check_readable(root: Path, remote: Remote) -> None:
    """List the remote's folder: refused credentials stop here with the server's answer. DVC's
    own pull names them only when it lists the remote; asked for a few objects one by one, it
    takes a refusal for absence and reports missing cache files instead."""
    with dvc_repo(root) as repo:
        target = repo.cloud.get_remote(remote.name)
        try:
            target.fs.ls(target.path, detail=False)
        except Exception as error:  # every filesystem raises its own kind; all mean "cannot read"
            raise ReleaseError(
                f"cannot read remote {remote.name!r} ({remote.url}): {type(error).__name__}: "
                f"{error or 'no detail'}. Check that it exists and its credentials "
                f"(`dvc remote modify --local {remote.name} ...`)"
            ) from error


def released_objects(root: Path, outputs: Sequence[str]) -> list[StoredObject]:
    """Every object the outputs need, from the lock file's hashes and the local cache."""
    found: list[StoredObject] = []
    with dvc_repo(root) as repo:
        cache = repo.cache.local
        for output in outputs:
            out = _output(repo, root, output)
            oid = out.hash_info.value
            if not oid:
                raise ReleaseError(f"{output} has no hash in dvc.lock: run `dvc repro` first")
            manifest = Path(cache.oid_to_path(oid))
            if not manifest.is_file():
                raise ReleaseError(
                    f"{output}: object {oid} is not in the DVC cache ({manifest}); run `dvc commit`"
                )
            found.append(StoredObject(oid, manifest.stat().st_size, output))
            if oid.endswith(".dir"):
                for entry in json.loads(manifest.read_text(encoding="utf-8")):
                    path = Path(cache.oid_to_path(entry[HASH_NAME]))
                    if not path.is_file():
                        raise ReleaseError(f"{output}/{entry['relpath']} is not in the DVC cache ({path})")
                    found.append(StoredObject(entry[HASH_NAME], path.stat().st_size, output))
    return found


def _output(repo, root: Path, output: str):
    wanted = (Path(root) / output).resolve()
    for stage in repo.index.stages:
        for out in stage.outs:
            if Path(out.fs_path).resolve() == wanted:
                if not out.use_cache:
                    raise ReleaseError(
                        f"{output} is kept in git (cache: false), not in DVC's cache: not a release output"
                    )
                return out
    raise ReleaseError(f"{output} is no output of this project's dvc.yaml or .dvc files")


def push(root: Path, remote: Remote, outputs: Sequence[str]) -> None:
    """``dvc push`` of the outputs, then a check of every object's size on the remote. DVC
    uploads an object under a temporary name and renames it once whole, so a killed push leaves
    no partial object (its next run sends only what is missing); but ``dvc push`` takes any
    object present under its name as whole, so one cut short some other way (copied by hand, a
    full disk) would stay. Objects of the wrong size are removed and sent again."""
    log.info("pushing %s to %s (%s)", ", ".join(outputs), remote.name, remote.url)
    result = dvc(root, "push", "--remote", remote.name, *outputs)
    log.info("%s", result.stdout.strip() or result.stderr.strip())
    objects = released_objects(root, outputs)
    wrong = _wrong_sized(root, remote, objects)
    if wrong:
        log.warning(
            "%d object(s) on %s had the wrong size; sending them again",
            len(wrong),
            remote.name,
        )
        _resend(root, remote, wrong)
        still = _wrong_sized(root, remote, objects)
        if still:
            raise ReleaseError(
                f"objects on {remote.name!r} still have the wrong size after sending them again: "
                + ", ".join(o.oid for o in still)
            )


def _wrong_sized(root: Path, remote: Remote, objects: Sequence[StoredObject]) -> list[StoredObject]:
    with dvc_repo(root) as repo:
        odb = repo.cloud.get_remote_odb(remote.name, hash_name=HASH_NAME)
        wrong = []
        for stored in objects:
            path = odb.oid_to_path(stored.oid)
            try:
                size = odb.fs.size(path)
            except FileNotFoundError:
                size = None
            if size != stored.size:
                wrong.append(stored)
    return wrong


def _resend(root: Path, remote: Remote, objects: Sequence[StoredObject]) -> None:
    """Replace the objects on the remote with the cache's. Not by ``dvc push``: after a push
    DVC remembers the folders it sent as complete and would not look at the remote again."""
    with dvc_repo(root) as repo:
        odb = repo.cloud.get_remote_odb(remote.name, hash_name=HASH_NAME)
        cache = repo.cache.local
        for stored in objects:
            path = odb.oid_to_path(stored.oid)
            if odb.fs.exists(path):
                odb.fs.remove(path)
            odb.add(cache.oid_to_path(stored.oid), cache.fs, stored.oid, check_exists=False)


def relative_to(root: Path, path: Path) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")
