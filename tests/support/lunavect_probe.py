"""Reading states the way a person's scripts do: through `lunavect list --json`, in the test's iso HOME."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

#: lunavect's installed command, as a person's shell and the clients' hooks run it.
LUNAVECT = str(Path(sys.executable).parent / "lunavect")


def _run(command: list[str], env: dict[str, str], timeout: float, cwd: str | os.PathLike | None = None):
    """Run lunavect as the tests do: the iso HOME's environment, output captured, nothing on its stdin."""
    return subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def lunavect(
    env: dict[str, str], *args: str, timeout: float = 30, cwd: str | os.PathLike | None = None
) -> subprocess.CompletedProcess:
    return _run([sys.executable, "-m", "lunavect", *args], env, timeout, cwd)


def installed_lunavect(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """The installed command (:data:`LUNAVECT`) with ``args``, in the iso HOME of ``env``."""
    return _run([LUNAVECT, *args], env, timeout)


def listed(env: dict[str, str], provider: str | None = None, *, all_: bool = True) -> list[dict]:
    """The installed command's ``list --json`` (with ``--all``: also the finished sessions), of one client's
    sessions if ``provider`` is given."""
    proc = installed_lunavect(env, "list", "--json", *(["--all"] if all_ else []))
    assert proc.returncode == 0, proc.stderr
    return [s for s in json.loads(proc.stdout) if provider in (None, s["provider"])]


def wait_listed(
    env: dict[str, str], provider: str, where: Callable[[dict], bool], *, timeout: float = 60, interval: float = 0.3
) -> dict:
    """Poll :func:`listed` until a session of ``provider`` satisfies ``where``; return it."""
    deadline = time.monotonic() + timeout
    seen: list[dict] = []
    while True:
        seen = listed(env, provider)
        for session in seen:
            if where(session):
                return session
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {provider} session as expected within {timeout}s; sessions: {json.dumps(seen)}")
        time.sleep(interval)


def list_sessions(env: dict[str, str], *extra: str) -> list[dict]:
    done = lunavect(env, "list", "--json", *extra)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    return json.loads(done.stdout)


def session_of(sessions: list[dict], session_id: str | None = None) -> dict | None:
    if session_id is None:
        return sessions[0] if len(sessions) == 1 else None
    for session in sessions:
        if session["session_id"] == session_id:
            return session
    return None


class Timeline:
    """Every distinct (state, activity, background) a session showed while a test watched it."""

    def __init__(self) -> None:
        self.seen: list[tuple] = []

    def add(self, session: dict | None) -> None:
        if session is None:
            return
        key = (session["state"], session["activity"], json.dumps(session["background"], sort_keys=True))
        if not self.seen or self.seen[-1] != key:
            self.seen.append(key)

    @property
    def states(self) -> list[str]:
        out: list[str] = []
        for state, _activity, _bg in self.seen:
            if not out or out[-1] != state:
                out.append(state)
        return out

    def __repr__(self) -> str:
        return f"Timeline({self.seen})"


def wait_for(
    env: dict[str, str],
    predicate: Callable[[dict], bool],
    *,
    session_id: str | None = None,
    timeout: float = 30,
    timeline: Timeline | None = None,
    interval: float = 0.2,
) -> dict:
    """Poll `lunavect list --json` until the session satisfies `predicate`; return that session."""
    deadline = time.monotonic() + timeout
    last: list[dict] = []
    while True:
        last = list_sessions(env)
        session = session_of(last, session_id)
        if timeline is not None:
            timeline.add(session)
        if session is not None and predicate(session):
            return session
        if time.monotonic() > deadline:
            raise AssertionError(f"no session matched within {timeout}s; last list: {last}; {timeline}")
        time.sleep(interval)


def wait_state(env: dict[str, str], state: str, **kwargs) -> dict:
    return wait_for(env, lambda s: s["state"] == state, **kwargs)


def store_events(env: dict[str, str]) -> list[tuple[str, str]]:
    """(kind, session id) of every stored event, straight from the store."""
    path = Path(env["LUNAVECT_HOME"]) / "lunavect.sqlite3"
    if not path.exists():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT kind, session_id FROM events ORDER BY seq").fetchall()
    finally:
        conn.close()


def files_under(root: str | os.PathLike) -> list[Path]:
    return [p for p in Path(root).rglob("*") if p.is_file()]


def assert_kept_out(root: str | os.PathLike, *secrets: bytes) -> list[Path]:
    """No file under ``root`` (lunavect's home) holds any of ``secrets`` (README "Privacy": prompts, replies
    and commands are never stored); the files read, for the caller's own checks."""
    written = files_under(root)
    for path in written:
        data = path.read_bytes()
        for secret in secrets:
            assert secret not in data, f"{secret!r} found in {path}"
    return written


def http_spool_lines(data_dir: Path) -> list[dict]:
    """The spool's lines that came by HTTP hooks (the collector's listener marks each `"via": "http"`)."""
    lines = []
    for path in (data_dir / "spool").glob("*.jsonl*"):
        for raw in path.read_text(errors="replace").splitlines():
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("via") == "http":
                lines.append(record)
    return lines
