"""A client of `codex app-server`: newline-delimited JSON-RPC over the child's stdin and stdout.

Codex's own server is the authority on which threads exist, what they are (source, parent, originator) and
their titles; lunavect asks it and nothing else, with a time limit on every request, and never asks it to
change anything. It also teaches lunavect which native executable a launcher script (`codex` is a Node.js
wrapper) really runs, which the writer proof needs; that association is forgotten as soon as either file changes.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import psutil

from lunavect import __version__
from lunavect.core import bounded_json

CLIENT_NAME = "lunavect"
START_TIMEOUT_S = 15.0
# Interpreters a launcher script may run under; the native executable is found below them.
INTERPRETERS = frozenset({"node", "nodejs", "bun", "deno", "sh", "bash", "dash", "zsh", "env", "perl", "ruby"})
MAX_CHAIN = 4
# Replies to requests the server sends us (approvals and the like): lunavect answers none of them.
_METHOD_NOT_FOUND = -32601


class AppServerError(Exception):
    """The app-server refused a request (`code`, `message`), or cannot be used at all (code None)."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


def find_codex(environ: Mapping[str, str] = os.environ) -> str | None:
    """The Codex executable to ask: $LUNAVECT_CODEX, else `codex` on PATH."""
    chosen = environ.get("LUNAVECT_CODEX")
    if chosen:
        return chosen if os.access(chosen, os.X_OK) else None
    return shutil.which("codex", path=environ.get("PATH"))


class AppServer:
    """One `codex app-server` child. Requests are answered in order; every wait has a deadline."""

    def __init__(self, executable: str, env: Mapping[str, str] | None = None, cwd: str | None = None) -> None:
        self.executable = executable
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._next_id = 0
        self._selector: selectors.BaseSelector | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, timeout: float = START_TIMEOUT_S) -> dict:
        """Start the child and complete the handshake; returns the `initialize` result."""
        try:
            self.proc = subprocess.Popen(
                [self.executable, "app-server"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=self.env,
                cwd=self.cwd,
                start_new_session=True,  # a terminal's Ctrl-C meant for lunavect's front end is not for it
            )
        except OSError as exc:
            raise AppServerError(f"cannot start {self.executable} app-server: {exc.strerror}") from None
        assert self.proc.stdout is not None
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)
        try:
            result = self.request(
                "initialize",
                {
                    "clientInfo": {"name": CLIENT_NAME, "title": "lunavect", "version": __version__},
                    "capabilities": {"experimentalApi": True},
                },
                timeout=timeout,
            )
            self._send({"method": "initialized"})
        except (AppServerError, TimeoutError):
            self.close()
            raise
        return result

    def request(self, method: str, params: dict | None = None, timeout: float = 3.0) -> dict:
        """The result of one request; AppServerError when refused, TimeoutError past the deadline."""
        if not self.running:
            raise AppServerError("the app-server is not running")
        self._next_id += 1
        ident = self._next_id
        message: dict = {"method": method, "id": ident}
        if params is not None:
            message["params"] = params
        self._send(message)
        deadline = time.monotonic() + timeout
        while True:
            for reply in self._replies(deadline):
                if reply.get("id") == ident and ("result" in reply or "error" in reply):
                    error = reply.get("error")
                    if error is not None:
                        code = error.get("code") if isinstance(error, dict) else None
                        text = error.get("message") if isinstance(error, dict) else str(error)
                        raise AppServerError(str(text), code if isinstance(code, int) else None)
                    result = reply.get("result")
                    return result if isinstance(result, dict) else {"value": result}
                if "method" in reply and "id" in reply:
                    # A request from the server (an approval for a thread of ours: there are none): decline.
                    self._send({"id": reply["id"], "error": {"code": _METHOD_NOT_FOUND, "message": "not supported"}})
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{method}: no answer within {timeout:.1f} s")

    def _send(self, message: dict) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise AppServerError(f"the app-server stopped: {exc}") from None

    def _replies(self, deadline: float) -> list[dict]:
        """Messages that arrived before the deadline (at least one wait for readability)."""
        assert self.proc is not None and self.proc.stdout is not None and self._selector is not None
        remaining = max(0.0, deadline - time.monotonic())
        if b"\n" not in self._buffer and not self._selector.select(remaining):
            return []
        try:
            chunk = self.proc.stdout.read(1 << 20)
        except (BlockingIOError, InterruptedError):
            chunk = b""
        if chunk == b"" and self.proc.poll() is not None and b"\n" not in self._buffer:
            raise AppServerError("the app-server exited")
        self._buffer += chunk or b""
        messages: list[dict] = []
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            if not line.strip():
                continue
            try:
                value = bounded_json.loads(line)
            except ValueError:
                continue  # a line we cannot read (or nested too deep) is not an answer
            if isinstance(value, dict):
                messages.append(value)
        return messages

    def close(self) -> None:
        """Stop the child: closing its stdin ends it; it is killed if it lingers."""
        proc, self.proc = self.proc, None
        if self._selector is not None:
            self._selector.close()
            self._selector = None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        for stream in (proc.stdout,):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


# -- the native executable behind a launcher -------------------------------------------------------------------


def _signature(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


@dataclass(frozen=True)
class NativeExecutable:
    """The native Codex executable a launcher runs, as learned from a running app-server.

    Held in memory only, and valid only while neither file changed (an update replaces both).
    """

    launcher: str
    launcher_signature: tuple[int, int, int, int]
    native: str
    native_signature: tuple[int, int, int, int]

    def valid(self) -> bool:
        return _signature(self.launcher) == self.launcher_signature and _signature(self.native) == self.native_signature


def _exe(pid: int) -> str | None:
    try:
        return psutil.Process(pid).exe() or None
    except (psutil.Error, OSError):
        return None


def _is_interpreter(exe: str) -> bool:
    name = os.path.basename(exe)
    return name in INTERPRETERS or name.startswith("python")


def native_behind(launcher: str, pid: int) -> NativeExecutable | None:
    """Follow a launcher's process down one unambiguous chain of children to its native executable.

    An interpreter with no child, several children, or a child that cannot be read establishes nothing.
    """
    exe = _exe(pid)
    for _ in range(MAX_CHAIN):
        if exe is None:
            return None
        if not _is_interpreter(exe):
            break
        try:
            kids = psutil.Process(pid).children()
        except (psutil.Error, OSError):
            return None
        if len(kids) != 1:
            return None
        pid = kids[0].pid
        exe = _exe(pid)
    else:
        return None
    if exe is None:
        return None
    exe = exe.removesuffix(" (deleted)")
    launcher_path = str(Path(launcher).resolve())
    launcher_signature, native_signature = _signature(launcher_path), _signature(exe)
    if launcher_signature is None or native_signature is None:
        return None
    return NativeExecutable(launcher_path, launcher_signature, exe, native_signature)
