"""Claude Code sessions that no hook reports, read from the client's own files: what the real-client tests of
the hookless path share (hooks removed, `lunavect list --json` polled until a session's row is as awaited)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from claude_tmux import IsoHome
from lunavect_probe import lunavect

SESSION_TIMEOUT = 60.0


def remove_hooks(iso: IsoHome) -> None:
    """No lunavect hook may report these sessions: only the files can."""
    proc = lunavect(iso.env, "hooks", "uninstall", timeout=60, cwd=iso.home)
    assert proc.returncode == 0, proc.stderr
    settings = json.dumps(iso.read_claude_settings())
    assert "lunavect" not in settings and "hook.py" not in settings


def lunavect_list(iso: IsoHome, *args: str) -> list[dict]:
    proc = lunavect(iso.env, "list", "--json", *args, timeout=60, cwd=iso.home)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def wait_session(
    iso: IsoHome, session_id: str, accept: Callable[[dict], bool], timeout: float = SESSION_TIMEOUT, *args: str
) -> dict:
    """Poll `lunavect list --json` until the session's row satisfies `accept`; returns that row."""
    deadline = time.monotonic() + timeout
    rows: list[dict] = []
    while True:
        rows = lunavect_list(iso, *args)
        row = next((r for r in rows if r["session_id"] == session_id), None)
        if row is not None and accept(row):
            return row
        if time.monotonic() > deadline:
            raise TimeoutError(f"session {session_id} never matched; last rows: {json.dumps(rows, indent=1)}")
        time.sleep(0.2)


def session_of(claude) -> str:
    entry = claude.wait_catalog(lambda e: bool(e.get("sessionId")), timeout=30)
    return entry["sessionId"]
