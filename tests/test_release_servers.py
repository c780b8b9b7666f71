"""Releases pushed to real storage servers on 127.0.0.1 and pulled back into fresh clones:
Debian's OpenSSH server (an SFTP remote, dvc-ssh) and WsgiDAV (a WebDAV remote, dvc-webdav),
each its own process with its own credentials. Refused credentials, a read-only share and an
interrupted push are tested against the same servers."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.dvc_project import commit_all, dvc, file_digests, project_environment, run
from tests.release_project import RELEASED, make_project, release, set_params
from tests.storage_servers import keygen, ssh_server, webdav_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, scicon_cache):
    env = project_environment(scicon_cache)
    return make_project(tmp_path_factory.mktemp("servers") / "project", env), env


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    with ssh_server(tmp_path_factory.mktemp("sshd") / "server") as server:
        yield server


@pytest.fixture(scope="module")
def webdav(tmp_path_factory):
    with webdav_server(tmp_path_factory.mktemp("webdav") / "server") as server:
        yield server


def project_copy(tiny, tmp_path: Path, **env_changes) -> tuple[Path, dict]:
    source, env = tiny
    project = tmp_path / "project"
    shutil.copytree(source, project, symlinks=True)
    return project, {**env, **env_changes}


def add_remote(project: Path, env: dict, name: str, url: str, **credentials: str) -> None:
    """The remote's URL in .dvc/config (committed), its credentials in .dvc/config.local (never)."""
    dvc(project, env, "remote", "add", name, url)
    dvc(project, env, "remote", "modify", name, "verify", "true")
    commit_all(project, env, f"the {name} remote")
    set_credentials(project, env, name, **credentials)


def set_credentials(project: Path, env: dict, name: str, **credentials: str) -> None:
    for option, value in credentials.items():
        dvc(project, env, "remote", "modify", "--local", name, option, value)


def pulled_clone(project: Path, env: dict, destination: Path, tag: str, remote: str, **credentials) -> Path:
    run(["git", "clone", "-q", "--branch", tag, str(project), str(destination)], destination.parent, env)
    set_credentials(destination, env, remote, **credentials)
    dvc(destination, env, "pull", "--remote", remote, *RELEASED)
    return destination


def failed_pull(project: Path, env: dict, destination: Path, tag: str, remote: str, **credentials) -> str:
    run(["git", "clone", "-q", "--branch", tag, str(project), str(destination)], destination.parent, env)
    set_credentials(destination, env, remote, **credentials)
    result = dvc(destination, env, "pull", "--remote", remote, *RELEASED, check=False)
    assert result.returncode != 0 and not (destination / "data/scicon").exists()
    return result.stdout + result.stderr


def test_a_release_goes_to_an_ssh_server_and_comes_back_into_a_fresh_clone(tiny, sshd, tmp_path):
    # HOME: the client trusts the throwaway host key through ~/.ssh/known_hosts, as a user's would
    project, env = project_copy(tiny, tmp_path, HOME=str(sshd.home))
    add_remote(project, env, "ssh", f"{sshd.url()}/release", keyfile=str(sshd.key))
    release(project, env, "cut", "v1", "--remote", "ssh")
    clone = pulled_clone(project, env, tmp_path / "clone", "v1", "ssh", keyfile=str(sshd.key))
    assert file_digests(clone, RELEASED) == file_digests(project, RELEASED)
    assert "Data and pipelines are up to date" in dvc(clone, env, "status").stdout

    stranger = str(keygen(tmp_path / "stranger"))  # a key the server does not know
    said = failed_pull(project, env, tmp_path / "refused", "v1", "ssh", keyfile=stranger)
    assert (
        f"ERROR: failed to connect to ssh ({sshd.storage}/release/files/md5) - Permission denied for user"
        in said
    )
    set_credentials(project, env, "ssh", keyfile=stranger)
    refused = release(project, env, "cut", "v2", "--remote", "ssh", check=False)
    assert refused.returncode == 1
    assert "cannot write to remote 'ssh'" in refused.stderr and "Permission denied for user" in refused.stderr


def test_a_release_goes_to_a_webdav_server_and_comes_back_into_a_fresh_clone(tiny, webdav, tmp_path):
    project, env = project_copy(tiny, tmp_path)
    credentials = {"user": webdav.user, "password": webdav.password}
    add_remote(project, env, "dav", webdav.url("release"), **credentials)
    release(project, env, "cut", "v1", "--remote", "dav")
    clone = pulled_clone(project, env, tmp_path / "clone", "v1", "dav", **credentials)
    assert file_digests(clone, RELEASED) == file_digests(project, RELEASED)

    said = failed_pull(project, env, tmp_path / "refused", "v1", "dav", user=webdav.user, password="wrong")
    # DVC calls it an unexpected error (exit 255), naming the server's answer and the URL
    assert "ERROR: unexpected error - received 401 (Not Authorized)" in said, said
    set_credentials(project, env, "dav", password="wrong")
    refused = release(project, env, "verify", "v1", "--remote", "dav", check=False)
    assert refused.returncode == 1 and "cannot read remote 'dav'" in refused.stderr, refused.stderr
    assert "401" in refused.stderr
    set_credentials(project, env, "dav", password=webdav.password)

    add_remote(project, env, "read-only", webdav.url("read-only/release"), **credentials)
    refused = release(project, env, "cut", "v2", "--remote", "read-only", check=False)
    assert refused.returncode == 1 and "cannot write to remote 'read-only'" in refused.stderr, refused.stderr


SHARDS = 30  # judge files of 512 KiB: a push of 15 MiB in 36 objects, killed after its first


def stored_objects(storage: Path) -> list[Path]:
    """The objects a push completed: DVC uploads each under a temporary name (``.<random>.tmp``)
    and renames it when whole, so a killed push leaves those behind, never a partial object."""
    return [path for path in storage.rglob("*") if path.is_file() and not path.name.endswith(".tmp")]


def test_an_interrupted_push_resumes_and_the_release_mends_a_truncated_object(tiny, sshd, tmp_path):
    project, env = project_copy(tiny, tmp_path, HOME=str(sshd.home))
    set_params(project, shards=SHARDS, weight_kib=512)
    dvc(project, env, "repro")
    commit_all(project, env, "a judge in many shards")
    storage = sshd.storage / "interrupted"
    add_remote(project, env, "ssh", f"{sshd.url()}/interrupted", keyfile=str(sshd.key))
    total = 2 + 4 + SHARDS + 1  # manifests, dataset files, shards, the judge's config

    push = subprocess.Popen(
        [sys.executable, "-m", "dvc", "push", "--remote", "ssh", *RELEASED],
        cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 300
    while not stored_objects(storage) and time.monotonic() < deadline and push.poll() is None:
        time.sleep(0.01)
    os.killpg(push.pid, signal.SIGKILL)
    push.wait()
    present = stored_objects(storage)
    assert 0 < len(present) < total, (
        f"the push was not interrupted half-way: {len(present)} of {total} objects"
    )
    # an object cut short some other way (a copy by hand, a full disk): the release finds it by
    # its size and sends it again
    truncated = max(present, key=lambda path: path.stat().st_size)
    truncated.chmod(0o644)
    with truncated.open("r+b") as handle:
        handle.truncate(truncated.stat().st_size // 2)

    resumed = release(project, env, "cut", "v1", "--remote", "ssh")
    pushed = int(re.search(r"(\d+) files? pushed", resumed.stderr).group(1))
    assert pushed == total - len(present)  # only what the killed push had not sent
    assert "1 object(s) on ssh had the wrong size; sending them again" in resumed.stderr
    clone = pulled_clone(project, env, tmp_path / "clone", "v1", "ssh", keyfile=str(sshd.key))
    assert file_digests(clone, RELEASED) == file_digests(project, RELEASED)
