"""What the unit tests share: one isolated installation (`Iso`, which the `iso_env` fixture of tests/conftest.py
gives every test), the ways to run the shim, stopping a collector a test started, and builders of sessions,
snapshots and sources.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import msgspec

import lunavect.shim
from lunavect import store
from lunavect.clients.claude.summary import TranscriptSummary
from lunavect.collector import loop as collector_loop
from lunavect.core.model import Evidence, Session, State
from lunavect.evidence import spool
from lunavect.evidence.sources import Batch, Source
from lunavect.notify import settings

HOOK_FILE = str(Path(lunavect.shim.__file__).resolve().with_name("entry.py"))
# The console script of this venv (the tests run with .venv/bin/python).
LUNAVECT_BIN = str(Path(sys.executable).parent / "lunavect")

T = TypeVar("T")


def installed_hook_command(client: str = "claude") -> list[str]:
    """The command `lunavect hooks install` writes into settings.json, as an argv."""
    from lunavect.install import command as install

    return shlex.split(install.hook_command(client))


def hook_file_command(client: str = "claude") -> list[str]:
    """The shim run as a file by path, without `site`: `python -I -S <path>/lunavect/shim/entry.py claude`."""
    return [sys.executable, "-I", "-S", HOOK_FILE, client]


# The ways the agent (or a person) can run the shim.
HOOK_FORMS = {
    "installed": installed_hook_command,
    "file": hook_file_command,
    "cli": lambda client="claude": [LUNAVECT_BIN, "hook", client],
}


def _is_our_collector(pid: int, data: Path) -> bool:
    """True when `pid` is a lunavect collector (not some reused pid of another program)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    text = b" ".join(cmdline).decode("utf-8", "replace")
    if "lunavect" not in text or "daemon" not in text:
        return False
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return True
    wanted = f"LUNAVECT_HOME={data}".encode()
    return wanted in environ


def stop_collector(data: Path, timeout: float = 5.0) -> None:
    """Stop the collector whose lock lies in `data` (if one runs), by its pid."""
    try:
        pid = int((data / "collector.lock").read_text().strip() or 0)
    except (OSError, ValueError):
        return
    if not pid or pid == os.getpid() or not _is_our_collector(pid, data):
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                # Reap it if it is our child; otherwise poll for its disappearance.
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    return
            except ChildProcessError:
                pass
            if not Path(f"/proc/{pid}").exists():
                return
            try:
                if Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z"):
                    return  # a zombie of a parent that is not us: it is stopped
            except (OSError, IndexError):
                return
            time.sleep(0.02)


@dataclass
class Iso:
    """One isolated installation: its folders and the environment that points at them."""

    root: Path
    home: Path
    claude: Path
    codex: Path
    data: Path
    env: dict[str, str]
    _conns: list[sqlite3.Connection] = field(default_factory=list)

    # -- the spool ---------------------------------------------------------------------------------------

    @property
    def spool_dir(self) -> Path:
        return self.data / "spool"

    @property
    def spool(self) -> Path:
        return self.spool_dir / "events.jsonl"

    def spool_records(self) -> list[dict]:
        try:
            raw = self.spool.read_bytes()
        except FileNotFoundError:
            return []
        return [json.loads(line) for line in raw.splitlines() if line.strip()]

    # -- running lunavect --------------------------------------------------------------------------------

    def hook(
        self,
        payload: bytes | str | dict | None,
        *,
        via: str = "installed",
        timeout: float = 20,
        client: str = "claude",
        env: dict[str, str] | None = None,
        **kwargs,
    ) -> subprocess.CompletedProcess:
        """Run the real shim in one of its HOOK_FORMS (by default the command `hooks install` writes)."""
        if isinstance(payload, dict):
            payload = json.dumps(payload)
        if isinstance(payload, str):
            payload = payload.encode("utf-8")
        argv = HOOK_FORMS[via](client)
        if payload is None:
            kwargs.setdefault("stdin", subprocess.DEVNULL)
        else:
            kwargs["input"] = payload
        return subprocess.run(argv, env=env or self.env, capture_output=True, timeout=timeout, **kwargs)

    def cli(self, *args: str) -> subprocess.CompletedProcess:
        """Run `lunavect <args>` in this process with click's CliRunner, in this installation's environment.

        The result has the shape of a finished subprocess, so a test reads both kinds the same way."""
        from click.testing import CliRunner

        from lunavect.cli.root import cli

        result = CliRunner(env=self.env).invoke(cli, list(args), prog_name="lunavect")
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception  # a traceback the real command would have printed: fail loudly
        return subprocess.CompletedProcess(["lunavect", *args], result.exit_code, result.stdout, result.stderr)

    def cli_process(self, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
        """Run `lunavect <args>` as a real subprocess of the console script, in this installation."""
        return subprocess.run([LUNAVECT_BIN, *args], env=self.env, capture_output=True, text=True, timeout=timeout)

    def program_on_path(self, name: str, script: str) -> Path:
        """A program `name` first on this installation's PATH, running the shell `script`: a stand-in for a client
        the code under test looks up and starts."""
        folder = self.root / "bin"
        folder.mkdir(exist_ok=True)
        exe = folder / name
        exe.write_text(f"#!/bin/sh\n{script}\n")
        exe.chmod(0o755)
        if self.env["PATH"].split(os.pathsep)[0] != str(folder):
            self.env["PATH"] = f"{folder}{os.pathsep}{self.env['PATH']}"
        return exe

    def recording_program(self, name: str, record: Path) -> Path:
        """A program `name` on PATH that writes the folder it runs in and its arguments, each ended by a NUL, to
        `record`: what a test reads to know how the code under test started it."""
        return self.program_on_path(name, f'printf \'%s\\0\' "$PWD" "$@" > {record}')

    def connect(self) -> sqlite3.Connection:
        """The store of this installation (closed in teardown)."""
        from lunavect import store

        conn = store.connect()
        self._conns.append(conn)
        return conn

    def close(self) -> None:
        for conn in self._conns:
            try:
                conn.close()
            except sqlite3.Error:
                pass
        self._conns.clear()


def shared_data_dir() -> Path:
    """The real transcripts and rollouts of `shared/data/`: where $LUNAVECT_SHARED_DATA points, or a
    `shared/data` folder beside the checkout (as CI lays it out) or beside any folder above it (a worktree)."""
    if os.environ.get("LUNAVECT_SHARED_DATA"):
        return Path(os.environ["LUNAVECT_SHARED_DATA"])
    checkout = Path(__file__).resolve().parents[2]
    for folder in checkout.parents:
        if (folder / "shared" / "data").is_dir():
            return folder / "shared" / "data"
    return checkout.parent / "shared" / "data"


def pending_spool_bytes(conn: sqlite3.Connection, spool_dir: Path) -> int:
    """How many spooled bytes the collector has not ingested yet: each spool file's size past its stored
    cursor (the collector's own exactly-once record)."""
    total = 0
    for path in spool.spool_files(spool_dir):
        try:
            st = path.stat()
        except FileNotFoundError:
            continue
        row = conn.execute("SELECT offset FROM spool_cursor WHERE inode = ?", (st.st_ino,)).fetchone()
        total += max(0, st.st_size - (row[0] if row else 0))
    return total


def transcript_summary(conn: sqlite3.Connection, session_id: str) -> TranscriptSummary | None:
    """What the collector stored of the session's transcript, as last read."""
    row = conn.execute(
        "SELECT summary FROM claude_transcript WHERE session_id = ? ORDER BY updated DESC LIMIT 1", (session_id,)
    ).fetchone()
    return msgspec.json.decode(row[0], type=TranscriptSummary) if row is not None else None


class Feed(Source):
    """Hands the collector the evidence a test queues, once."""

    name = "feed"

    def __init__(self) -> None:
        self.queued: list[tuple[str, Evidence]] = []

    def poll(self, conn, now):
        batch, self.queued = Batch(evidence=self.queued), []
        return batch


def a_session(sid: str = "s", **fields: object) -> Session:
    """A snapshot row with neutral values in every field a test does not name, so each test says only what it
    is about (the `Session` type has sixteen required fields)."""
    provider = str(fields.get("provider", "claude"))
    values: dict[str, object] = dict(
        id=f"{provider}:{sid}",
        provider=provider,
        session_id=sid,
        title=None,
        project=None,
        cwd=None,
        host="h",
        state=State.READY,
        activity=None,
        since=None,
        background={},
        error=None,
        pinned=False,
        hidden=False,
        resume=None,
        basis=["hook"],
    )
    values.update(fields)
    return Session(**values)  # type: ignore[arg-type]


def seed_snapshot(conn: sqlite3.Connection, *sessions: Session, listed: bool = True, updated: float = 0.0) -> None:
    """Store rows as the collector writes them (the snapshot table front ends read)."""
    with store.transaction(conn):
        for session in sessions:
            conn.execute(
                "INSERT OR REPLACE INTO snapshot (id, state, listed, data, updated) VALUES (?, ?, ?, ?, ?)",
                (session.id, session.state, int(listed), msgspec.json.encode(session).decode(), updated),
            )


def wait_until(check: Callable[[], T], what: str = "the awaited condition", timeout: float = 20.0) -> T:
    """What a live test does while another thread or process catches up: look again and again, and fail
    saying `what` never came once `timeout` seconds have passed (a slow machine gets the whole of it)."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        assert time.monotonic() < deadline, what
        time.sleep(0.02)
    return value


def delivering_to(conn: sqlite3.Connection, out: Path, **changes: object) -> settings.NotifySettings:
    """The person's notify settings, saved, with every notification delivered to a real `notify.command` that
    appends what it reads on stdin to `out`, one a line (and none on the desktop), so a test counts what was
    delivered; `changes` are the other settings the test is about."""
    chosen = settings.load(conn)
    chosen.desktop = False
    script = f"import sys; open({str(out)!r}, 'a').write(sys.stdin.read() + chr(10))"
    chosen.command = shlex.join([sys.executable, "-c", script])
    for name, value in changes.items():
        setattr(chosen, name, value)
    settings.save(conn, chosen)
    return chosen


@contextmanager
def sleeping_process(seconds: float = 120) -> Iterator[subprocess.Popen]:
    """A real running process a test can point at: its pid and start time stand for a client's or a background
    service's. Killed and reaped at the end."""
    proc = subprocess.Popen(["sleep", str(seconds)], stdin=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


@contextmanager
def collector_thread(**options: object) -> Iterator[sqlite3.Connection]:
    """The collector's own loop run on a thread of the test (so the test can patch what it calls), with a
    connection to its store; stopped, joined and proved gone at the end.

    The store is opened before the loop starts: a first open racing the collector's own could be the one that
    creates the schema, which the collector rightly takes for another process's commit."""
    conn = store.connect()
    stop = threading.Event()
    thread = threading.Thread(target=collector_loop.run, kwargs={"stop": stop, **options}, daemon=True)
    thread.start()
    try:
        yield conn
    finally:
        stop.set()
        thread.join(timeout=10)
        conn.close()
    assert not thread.is_alive()
