"""Several lunavect installations on one machine, each standing for a host: its own HOME, data folder and
collector process (`lunavect daemon`), driven through the real command line and the real hook shim."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Machine:
    name: str
    root: Path
    env: dict[str, str] = field(default_factory=dict)
    daemon: subprocess.Popen[bytes] | None = None

    @classmethod
    def create(cls, root: Path, name: str, extra_env: dict[str, str] | None = None) -> Machine:
        folder = root / name
        home = folder / "home"
        home.mkdir(parents=True)
        env = dict(os.environ)
        env.update(
            {
                "HOME": str(home),
                "CLAUDE_CONFIG_DIR": str(home / ".claude"),
                "CODEX_HOME": str(home / ".codex"),
                "LUNAVECT_HOME": str(folder / "data"),
                "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
            }
        )
        env.pop("XDG_DATA_HOME", None)
        env.update(extra_env or {})
        return cls(name, folder, env)

    @property
    def data(self) -> Path:
        return Path(self.env["LUNAVECT_HOME"])

    def run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "lunavect", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    def start_collector(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        log = open(self.root / "daemon.log", "ab")  # noqa: SIM115 - the child owns it
        try:
            self.daemon = subprocess.Popen(
                [sys.executable, "-m", "lunavect", "daemon"],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        finally:
            log.close()
        deadline = time.monotonic() + 20
        while not (self.data / "collector.lock").exists() or not self._locked():
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}'s collector did not start")
            time.sleep(0.05)

    def _locked(self) -> bool:
        try:
            return int((self.data / "collector.lock").read_text().strip() or 0) == (
                self.daemon.pid if self.daemon else -1
            )
        except (OSError, ValueError):
            return False

    def kill_collector(self) -> None:
        if self.daemon is not None and self.daemon.poll() is None:
            os.kill(self.daemon.pid, signal.SIGKILL)
            self.daemon.wait(timeout=10)
        self.daemon = None

    def stop_collector(self) -> None:
        if self.daemon is not None and self.daemon.poll() is None:
            self.daemon.terminate()
            try:
                self.daemon.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill_collector()
        self.daemon = None

    def sync_set(self, url: str, password: str, *extra: str) -> subprocess.CompletedProcess[str]:
        secret = self.root / "nats.password"
        secret.write_text(password + "\n")
        return self.run(
            "sync", "set", url, "--user", self.name, "--password-file", str(secret), "--host-name", self.name, *extra
        )

    def sessions(self, *extra: str) -> list[dict[str, Any]]:
        done = self.run("list", "--json", *extra)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def by_id(self, *extra: str) -> dict[str, dict[str, Any]]:
        return {s["id"]: s for s in self.sessions(*extra)}

    def hook(self, event: str, session_id: str, **fields: Any) -> None:
        """One Claude Code hook event through the real shim."""
        cwd = str(self.root / "project")
        payload = {
            "session_id": session_id,
            "transcript_path": str(self.root / f"{session_id}.jsonl"),
            "cwd": cwd,
            "hook_event_name": event,
            **fields,
        }
        done = subprocess.run(
            [sys.executable, "-m", "lunavect", "hook", "claude"],
            env=self.env,
            input=json.dumps(payload).encode(),
            capture_output=True,
            timeout=20,
        )
        assert done.returncode == 0 and not done.stdout


def new_session_id() -> str:
    return str(uuid.uuid4())
