"""Sessions for the panel's tests: snapshot rows written straight into a temporary store, at a fixed time."""

from __future__ import annotations

import datetime as _dt
import sqlite3
from collections.abc import Iterable

import msgspec

from lunavect import store
from lunavect.core.model import Session

# 2026-11-12 09:30:00 UTC: the panel's clock in every test.
NOW = _dt.datetime(2026, 11, 12, 9, 30, tzinfo=_dt.UTC).timestamp()


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return _dt.datetime.fromtimestamp(ts, _dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# The states whose client the seed's rows run in unless a test says otherwise.
RUNNING = frozenset({"working", "background", "compacting", "permission", "input", "ready", "offline"})


def session(
    sid: str,
    state: str = "idle",
    *,
    provider: str = "claude",
    title: str | None = None,
    project: str | None = "lunavect",
    activity: str | None = None,
    since: float | None = None,
    updated: float | None = None,
    background: dict[str, int] | None = None,
    error: str | None = None,
    waiting_for: str | None = None,
    open: bool | None = None,  # noqa: A002 - the contract's name
) -> Session:
    """A snapshot row as the collector would write it (`since`/`updated` in seconds before NOW). Its client is
    open unless said otherwise while the state needs a running client (or a ready reply waits in it); the session
    last did anything at `updated`."""
    cwd = f"/home/dev/src/{project}" if project else None
    command = "claude --resume" if provider == "claude" else "codex resume"
    return Session(
        id=f"{provider}:{sid}",
        provider=provider,
        session_id=sid,
        title=title if title is not None else f"Session {sid}",
        project=project,
        cwd=cwd,
        host="devbox",
        state=state,
        activity=activity,
        since=iso(NOW - since) if since is not None else None,
        background=background or {},
        error=error,
        pinned=False,
        hidden=False,
        resume=f"cd {cwd} && {command} {sid}" if cwd else f"{command} {sid}",
        basis=["hook"],
        waiting_for=waiting_for,
        updated=iso(NOW - (updated if updated is not None else (since if since is not None else 60))),
        open=open if open is not None else state in RUNNING,
        last_active=iso(NOW - (updated if updated is not None else (since if since is not None else 60))),
    )


def write(conn: sqlite3.Connection, sessions: Iterable[Session], listed: bool = True) -> None:
    """Store snapshot rows (insert or replace), as one commit: what a collector tick does."""
    with store.transaction(conn):
        for s in sessions:
            conn.execute(
                "INSERT INTO snapshot (id, state, listed, data, updated) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET state = excluded.state, listed = excluded.listed, "
                "data = excluded.data, updated = excluded.updated",
                (s.id, s.state, int(listed), msgspec.json.encode(s).decode(), NOW),
            )


def every_state() -> list[Session]:
    """One session in every state the guide names, with the details each shows."""
    return [
        session("a1", "working", title="Refactor the store layer", activity="thinking", since=42),
        session(
            "a2", "working", title="Run the test suite", activity="Bash", since=185, background={"shell": 2, "agent": 1}
        ),
        session("a3", "background", title="Render the docs site", since=1260, background={"shell": 1}),
        session("a4", "compacting", title="Long migration plan", project="infra", since=8),
        session("a5", "permission", title="Delete the build cache", project="infra", waiting_for="Bash", since=30),
        session("a6", "input", title="Shall I apply these changes?", waiting_for="question", updated=95),
        session("b1", "ready", title="Explain the collector", provider="codex", project="api", updated=400),
        session("b2", "idle", title="Sketch the sync protocol", provider="codex", project="api", updated=7200),
        session("b3", "error", title="Summarise the issue tracker", error="limit", updated=900),
        session("b4", "offline", title="Upgrade dependencies", project="web", activity="thinking", since=75),
        session("b5", "unknown", title="Investigate the flaky test", project="web", updated=4000),
    ]
