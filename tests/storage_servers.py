"""Real storage servers on 127.0.0.1 for DVC remotes, each a separate process started and
stopped by the test: Debian's OpenSSH server (``sshd``, SFTP) with a throwaway host key and an
authorised key, and WsgiDAV (a WebDAV server) with a user and password."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
WSGIDAV = str(Path(sys.executable).parent / "wsgidav")
# sshd's privilege-separation folder, compiled into Debian's build; made when missing (as root)
PRIVSEP = Path("/run/sshd")
STARTUP_SECONDS = 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"the server exited ({process.returncode}):\n{log.read_text(errors='replace')}"
            )
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.1)
    raise RuntimeError(
        f"no server on port {port} after {STARTUP_SECONDS} s:\n{log.read_text(errors='replace')}"
    )


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def keygen(path: Path) -> Path:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    return path


@dataclass(frozen=True)
class SSHServer:
    port: int
    user: str
    key: Path  # the authorised client key (private half)
    storage: Path  # what the remote URL's path names
    home: Path  # a HOME whose ~/.ssh/known_hosts holds the server's host key

    def url(self) -> str:
        return f"ssh://{self.user}@127.0.0.1:{self.port}{self.storage}"


@contextlib.contextmanager
def ssh_server(folder: Path):
    """``sshd -D`` on a free port, accepting only a key made here; SFTP served by sshd itself."""
    import getpass

    folder.mkdir(parents=True)
    host_key = keygen(folder / "host_key")
    client_key = keygen(folder / "client_key")
    (folder / "authorized_keys").write_text((folder / "client_key.pub").read_text())
    port = free_port()
    config = folder / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {host_key}\nPidFile {folder / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {folder / 'authorized_keys'}\nPubkeyAuthentication yes\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
        "PermitRootLogin prohibit-password\nSubsystem sftp internal-sftp\nLogLevel VERBOSE\n"
    )
    if os.geteuid() == 0 and not PRIVSEP.is_dir():
        PRIVSEP.mkdir(mode=0o755)
    home = folder / "home"
    (home / ".ssh").mkdir(parents=True)
    public_host_key = (folder / "host_key.pub").read_text().split()[:2]
    (home / ".ssh/known_hosts").write_text(f"[127.0.0.1]:{port} {' '.join(public_host_key)}\n")
    storage = folder / "storage"
    storage.mkdir()
    log = folder / "sshd.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(config)], stdout=output, stderr=subprocess.STDOUT
        )
    try:
        wait_for_port(port, process, log)
        yield SSHServer(port, getpass.getuser(), client_key, storage, home)
    finally:
        stop(process)


@dataclass(frozen=True)
class WebDAVServer:
    port: int
    user: str
    password: str
    storage: Path  # served read-write at /
    read_only: Path  # served read-only at /read-only

    def url(self, share: str = "") -> str:
        return f"webdav://127.0.0.1:{self.port}/{share}"


@contextlib.contextmanager
def webdav_server(folder: Path):
    """WsgiDAV's own command on a free port: basic authentication for one user, a read-write
    share and a read-only one."""
    folder.mkdir(parents=True)
    storage, read_only = folder / "storage", folder / "read-only"
    storage.mkdir()
    read_only.mkdir()
    port = free_port()
    user, password = "releaser", "correct-horse"
    config = {
        "host": "127.0.0.1",
        "port": port,
        "server": "cheroot",
        "verbose": 2,
        "provider_mapping": {
            "/": {"root": str(storage)},
            "/read-only": {"root": str(read_only), "readonly": True},
        },
        "http_authenticator": {
            "domain_controller": None,
            "accept_basic": True,
            "accept_digest": False,
            "default_to_digest": False,
        },  # fmt: skip
        "simple_dc": {"user_mapping": {"*": {user: {"password": password}}}},
        "dir_browser": {"enable": False},
        "lock_storage": True,
    }
    (folder / "wsgidav.yaml").write_text(yaml.safe_dump(config))
    log = folder / "wsgidav.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [WSGIDAV, "--config", str(folder / "wsgidav.yaml")], stdout=output, stderr=subprocess.STDOUT
        )
    try:
        wait_for_port(port, process, log)
        yield WebDAVServer(port, user, password, storage, read_only)
    finally:
        stop(process)
