"""A real OpenSSH server of a test's own, standing for another machine: Debian's `sshd` on 127.0.0.1 and a free
port, with its own configuration, host key and one authorized key the test made, and the login's environment set
by the server (`SetEnv`) to that machine's isolated HOME and lunavect home, so a command run over it is run
"there" and never in this machine's own folders.

The client side: OpenSSH's `ssh` reads `~/.ssh/config` from the user's home in the password database, never
from `$HOME`, so the isolated HOME's config is handed to it by a small `ssh` first on that HOME's PATH
(`exec /usr/bin/ssh -F $HOME/.ssh/config "$@"`): lunavect's own command stays `ssh HOST ...`, and the host name
means 127.0.0.1, the port, the key and a known-hosts file of the test's through that config alone.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

SSHD = "/usr/sbin/sshd"
# sshd refuses to start without its privilege separation folder (the Debian service makes it at boot).
PRIVSEP = Path("/run/sshd")


def missing() -> str | None:
    """Why a test cannot run its own sshd here, or None when it can."""
    if not os.path.exists(SSHD) or shutil.which("ssh-keygen") is None or not os.path.exists("/usr/bin/ssh"):
        return "openssh-server and openssh-client are not installed (scripts/test installs them)"
    if not PRIVSEP.is_dir():
        if os.geteuid() != 0:
            return f"{PRIVSEP} is missing and only root can make it"
        PRIVSEP.mkdir(mode=0o755, exist_ok=True)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True, timeout=30)


def _setenv(environ: Mapping[str, str]) -> str:
    """sshd_config's `SetEnv` line: each `NAME=value` quoted (a value may hold spaces)."""
    words = [f'"{name}={value}"' for name, value in environ.items() if '"' not in value and "\n" not in value]
    return "SetEnv " + " ".join(words)


@contextmanager
def sshd(folder: Path, environ: Mapping[str, str]) -> Iterator[tuple[int, Path]]:
    """Run sshd on 127.0.0.1 until the block ends; yields its port and the private key it accepts. Each login's
    environment is `environ` (sshd's `SetEnv`, which comes after HOME and PATH of the password database)."""
    folder.mkdir(parents=True, exist_ok=True)
    host_key, client_key = folder / "host_key", folder / "client_key"
    _keygen(host_key)
    _keygen(client_key)
    shutil.copy(folder / "client_key.pub", folder / "authorized_keys")
    port = _free_port()
    config = folder / "sshd_config"
    config.write_text(
        "\n".join(
            [
                f"Port {port}",
                "ListenAddress 127.0.0.1",
                f"HostKey {host_key}",
                f"PidFile {folder / 'sshd.pid'}",
                f"AuthorizedKeysFile {folder / 'authorized_keys'}",
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "UsePAM no",
                "StrictModes no",
                "PermitRootLogin prohibit-password",
                "PrintMotd no",
                "PrintLastLog no",
                f"AllowUsers {getpass.getuser()}",
                _setenv(environ),
                "",
            ]
        )
    )
    log = open(folder / "sshd.log", "ab")  # noqa: SIM115 - the server writes it until the end
    proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, (folder / "sshd.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "sshd did not listen within 20 s"
                time.sleep(0.1)
        yield port, client_key
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


def client_config(home: Path, host: str, port: int, key: Path) -> Path:
    """`host` as ssh reaches the test's sshd, in `home`'s `.ssh/config`, and the `ssh` that reads it, in a
    folder of `home` to put first on PATH (returned)."""
    ssh_dir = home / ".ssh"
    ssh_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    (ssh_dir / "config").write_text(
        "\n".join(
            [
                f"Host {host}",
                "  HostName 127.0.0.1",
                f"  Port {port}",
                f"  User {getpass.getuser()}",
                f"  IdentityFile {key}",
                "  IdentitiesOnly yes",
                "  StrictHostKeyChecking no",
                f"  UserKnownHostsFile {ssh_dir / 'known_hosts'}",
                "  BatchMode yes",
                "  LogLevel ERROR",
                "",
            ]
        )
    )
    bin_dir = home / "ssh-bin"
    bin_dir.mkdir(exist_ok=True)
    wrapper = bin_dir / "ssh"
    wrapper.write_text('#!/bin/sh\nexec /usr/bin/ssh -F "$HOME/.ssh/config" "$@"\n')
    wrapper.chmod(0o755)
    return bin_dir
