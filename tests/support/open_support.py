"""Helpers for the return-to-a-task tests: the clients on PATH and lunavect as a person runs them, one shared
tmux server with many panes, a second tmux client attached in a pty the test drives, Codex's hooks, and the one
scenario of the clients started in a shell (`open_focuses_then_resumes`).

Standard library and the scripted servers' harness only. Everything runs in the test's isolated HOME; the tmux server's environment is the
clients' environment, so every window it opens (including the one `lunavect open --resume-in tmux` opens)
talks to the scripted model servers.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from claude_tmux import ClientPaths, IsoHome, process_under
from lunavect_probe import lunavect, wait_for
from responses_server import API_KEY_ENV, ResponsesServer

_TMUX_CONF = """\
set -g remain-on-exit on
set -g history-limit 5000
set -g escape-time 10
set -g default-terminal tmux-256color
"""


class ClientsStage:
    """The pinned Claude Code and Codex on PATH (``claude`` and ``codex`` in the iso HOME's ``bin``), talking
    to the scripted servers, and lunavect run there as a person runs it (``python -m lunavect``, in HOME)."""

    #: Seconds a lunavect command may take.
    timeout: float = 90

    def __init__(self, iso: IsoHome, clients: ClientPaths, claude_url: str, responses: ResponsesServer) -> None:
        self.iso = iso
        bin_dir = self.bin_dir = iso.root / "bin"
        bin_dir.mkdir()
        (bin_dir / "claude").symlink_to(clients.claude)
        assert clients.codex is not None, "the pinned Codex is not installed"
        (bin_dir / "codex").symlink_to(clients.codex)
        self.env = iso.claude_env(claude_url)
        self.env[API_KEY_ENV] = "test-key"
        self.env["PATH"] = f"{bin_dir}{os.pathsep}{self.env.get('PATH', '/usr/bin:/bin')}"
        responses.write_codex_config(iso.codex_dir)

    def folder(self, name: str) -> Path:
        """A project folder of the iso work folder, trusted by Claude Code."""
        path = self.iso.work / name
        path.mkdir(exist_ok=True)
        self.iso.prepare_claude(cwds=[path])
        return path

    def lunavect(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "lunavect", *args],
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=self.timeout,
            stdin=subprocess.DEVNULL,
            cwd=str(self.iso.home),
        )

    def sessions(self) -> list[dict]:
        proc = self.lunavect("list", "--json", "--all")
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)


class Tmux:
    """One private tmux server (its own socket in the test's folder)."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.socket = root / "tmux.sock"
        self.conf = root / "tmux.conf"
        self.env = dict(env)
        self.env.pop("TMUX", None)
        self.conf.write_text(_TMUX_CONF)

    def __call__(self, *args: str, check: bool = True, timeout: float = 15) -> str:
        proc = subprocess.run(
            ["tmux", "-S", str(self.socket), "-f", str(self.conf), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        if check and proc.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)} failed: {proc.stderr.strip()}")
        return proc.stdout.strip()

    def new_session(self, name: str, cwd: Path, *command: str) -> str:
        """A detached tmux session; returns its first pane's id (`%N`)."""
        return self(
            "new-session",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-s",
            name,
            "-x",
            "200",
            "-y",
            "50",
            "-c",
            str(cwd),
            "--",
            *command,
        )

    def new_window(self, session: str, cwd: Path, *command: str) -> str:
        return self("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", f"{session}:", "-c", str(cwd), "--", *command)

    def split(self, target: str, cwd: Path, *command: str) -> str:
        return self("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", target, "-c", str(cwd), "--", *command)

    def capture(self, pane: str) -> str:
        return self("capture-pane", "-p", "-t", pane, check=False)

    def wait_screen(self, pane: str, pattern: str, timeout: float = 60) -> str:
        rx = re.compile(pattern, re.M)
        deadline = time.monotonic() + timeout
        while True:
            screen = self.capture(pane)
            if rx.search(screen):
                return screen
            if time.monotonic() > deadline:
                raise TimeoutError(f"pane {pane} did not show {pattern!r} in {timeout}s:\n{screen}")
            time.sleep(0.2)

    def send_text(self, pane: str, text: str) -> None:
        """Type the text, then Enter separately (one send-keys with both is taken as a paste)."""
        self("send-keys", "-t", pane, "-l", text)
        time.sleep(0.3)
        self("send-keys", "-t", pane, "Enter")

    def pane_value(self, pane: str, fmt: str) -> str:
        return self("display-message", "-p", "-t", pane, fmt)

    def client_pane(self, client: str) -> str:
        """The pane the attached client `client` shows now."""
        return self("display-message", "-p", "-c", client, "#{pane_id}")

    def clients(self) -> list[str]:
        out = self("list-clients", "-F", "#{client_name}", check=False)
        return [line for line in out.splitlines() if line]

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self("kill-server", check=False, timeout=10)


class AttachedClient:
    """`tmux attach` running in a pty this test owns, its output drained so the client never blocks."""

    def __init__(self, tmux: Tmux, target: str) -> None:
        self.tmux = tmux
        pid, fd = pty.fork()
        if pid == 0:  # the child: become the tmux client
            try:
                os.execvpe(
                    "tmux",
                    ["tmux", "-S", str(tmux.socket), "attach-session", "-t", target],
                    {**tmux.env, "TERM": "xterm-256color"},
                )
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()
        self.name = self._wait_name()

    def _drain(self) -> None:
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.2)
                if ready:
                    os.read(self.fd, 65536)
            except OSError:
                return

    def _wait_name(self, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.tmux("list-clients", "-F", "#{client_pid} #{client_name}", check=False).splitlines():
                pid, _, name = line.partition(" ")
                if pid == str(self.pid):
                    return name
            time.sleep(0.1)
        raise TimeoutError("the tmux client did not attach")

    def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.fd)


def write_codex_hooks(codex_home: Path, hook_command: str) -> None:
    """Run `hook_command` for every Codex lifecycle event (the TUI then runs with
    --dangerously-bypass-hook-trust, so no trust step is needed)."""
    codex_home.mkdir(parents=True, exist_ok=True)
    handler = [{"hooks": [{"type": "command", "command": hook_command, "timeout": 30}]}]
    events = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
    (codex_home / "hooks.json").write_text(json.dumps({"hooks": {e: handler for e in events}}))


def open_focuses_then_resumes(
    iso: IsoHome,
    env: dict[str, str],
    *,
    command: str,
    provider: str,
    ready_pattern: str,
    is_process: Callable[[dict], bool],
    resumes_with: str,
) -> None:
    """One client's return to its task, as the pane tests of the clients started in a shell (OpenCode, Copilot
    CLI, Pi, Qwen Code) prove it: `command` is started in a pane of one tmux session and answers a prompt (its scripted
    server replies "Reply for the pane"); from another session, which a real attached client shows, `open`
    focuses that exact pane. Once the client's process (`is_process`, the one lunavect reports) is killed, the
    session is never focused again: `open` prints `resumes_with`, the command that resumes it (`{work}`: the
    folder it ran in; `{session_id}`: its id)."""
    tmux = Tmux(iso.root, env)
    client: AttachedClient | None = None
    try:
        tmux.new_session("home", iso.work, "sh")
        pane = tmux.new_session("work", iso.work, command)
        tmux.wait_screen(pane, ready_pattern, timeout=90)
        tmux.send_text(pane, "say something")
        tmux.wait_screen(pane, "Reply for the pane")
        ready = wait_for(env, lambda s: s["provider"] == provider and s["state"] == "ready", timeout=40)
        assert ready["tty"] == tmux.pane_value(pane, "#{pane_tty}")

        client = AttachedClient(tmux, "home")
        assert tmux.client_pane(client.name) != pane
        proc = lunavect(env, "open", ready["id"], "--json", timeout=90)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = json.loads(proc.stdout)
        assert (result["outcome"], result["terminal"], result["target"]) == ("focused", "tmux", pane), result
        assert tmux.client_pane(client.name) == pane

        pid = process_under(int(tmux.pane_value(pane, "#{pane_pid}")), is_process)
        assert pid is not None and pid == ready["pid"]
        os.kill(pid, signal.SIGKILL)
        wait_for(env, lambda s: s["provider"] == provider and not s["open"], timeout=30)
        proc = lunavect(env, "open", ready["id"], "--resume-in", "print", timeout=90)
        resume = resumes_with.format(work=iso.work, session_id=ready["session_id"])
        assert resume in proc.stdout, proc.stdout + proc.stderr
    finally:
        if client is not None:
            client.close()
        tmux.kill()
