"""One look at one Codex rollout: what the source remembers of it (its cursor and summary, stored with the
collector's commit), the read of what was appended since, and the lifecycle evidence that read proves.

Kept apart from choosing which rollouts to look at (source.py) and from the catalog's view of threads
(thread_catalog.py). Evidence ids are the same every time the same fact is read again, so a re-read never
duplicates or re-times a fact.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from lunavect.clients.codex import compressed
from lunavect.clients.codex.cursor import CursorState, Lifecycle, LifecycleCursor
from lunavect.clients.codex.hooks import INPUT_TOOLS
from lunavect.clients.codex.rollout import (
    accepted_thread,
    client_of,
    first_prompt_title,
    is_archived,
    is_internal,
    read_header,
)
from lunavect.clients.codex.usage import UsageRead
from lunavect.clients.codex.usage_file import UsageChange, read_usage, usage_change
from lunavect.clients.codex.vocabulary import error_code, hook_tool_name
from lunavect.core.model import Evidence, session_key
from lunavect.evidence.sources import Batch

log = logging.getLogger("lunavect.clients.codex.source")

PROVIDER = "codex"
# Rollout activity renews a running turn's evidence at most this often.
ACTIVITY_STEP_S = 30.0
# A rollout unchanged this long, of a session not open, is finished: its last line counts without a newline.
QUIET_S = 120.0


class Summary(msgspec.Struct, omit_defaults=True):
    """What the source already knows of one rollout file, beside its cursor."""

    size: int = -1
    mtime_ns: int = -1
    ino: int = -1
    header: bool = False
    rejected: bool = False
    internal: bool = False
    cwd: str | None = None
    client: str | None = None
    started: float | None = None
    prompt_title: str | None = None
    activity_at: float | None = None
    # An internal agent's parent thread (its header's), whose session its tokens are counted to.
    parent: str | None = None


class Rollout:
    """One rollout the source follows: its lifecycle cursor and summary, and whether the next commit stores them."""

    def __init__(self, path: str, thread_id: str, cursor: CursorState, summary: Summary) -> None:
        self.path, self.thread_id, self.cursor, self.summary = path, thread_id, cursor, summary
        self.dirty = False
        # What the last read changed in the usage history, until the commit stores it (codex_usage.py).
        self.usage: UsageChange | None = None


def load_rollouts(conn: sqlite3.Connection) -> dict[str, Rollout]:
    """Every stored rollout by path; an unreadable cursor is forgotten (the rollout is read again)."""
    loaded: dict[str, Rollout] = {}
    for path, thread_id, cursor, summary in conn.execute("SELECT path, thread_id, cursor, summary FROM codex_rollout"):
        try:
            loaded[path] = Rollout(
                path,
                thread_id,
                msgspec.json.decode(cursor, type=CursorState),
                msgspec.json.decode(summary, type=Summary),
            )
        except msgspec.DecodeError:
            log.warning("forgetting the unreadable cursor of %s", path)
    return loaded


def save_rollout(conn: sqlite3.Connection, rollout: Rollout, now: float) -> None:
    """Store a rollout read since the last commit, with the usage that read changed."""
    conn.execute(
        "INSERT INTO codex_rollout (path, thread_id, cursor, summary, updated) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (path) DO UPDATE SET thread_id = excluded.thread_id, cursor = excluded.cursor, "
        "summary = excluded.summary, updated = excluded.updated",
        (
            rollout.path,
            rollout.thread_id,
            msgspec.json.encode(rollout.cursor).decode(),
            msgspec.json.encode(rollout.summary).decode(),
            now,
        ),
    )
    rollout.dirty = False
    if rollout.usage is not None:
        owner = rollout.summary.parent if rollout.usage.subagent and rollout.summary.parent else rollout.thread_id
        rollout.usage.save(conn, rollout.path, session_key(PROVIDER, owner))
        rollout.usage = None


def read_rollout(
    rollouts: dict[str, Rollout],
    path: str,
    codex_home: Path,
    memories: Path,
    now: float,
    batch: Batch,
    is_open: Callable[[str], bool] = lambda _thread: False,
) -> tuple[Rollout, Lifecycle | None] | None:
    """Read what was appended to one rollout; None when there is nothing to say of it (unchanged, not a
    thread's rollout, archived, no header yet, an internal agent: the last reported into `batch.internal`,
    its usage counted to its parent). `is_open` tells whether a thread's session is open (by its id)."""
    rollout = rollouts.get(path)
    if rollout is None:
        candidate = Path(path)
        thread = accepted_thread(candidate)
        if thread is None or is_archived(candidate, codex_home):
            return None
        rollout = rollouts[path] = Rollout(path, thread, CursorState(), Summary())
    summary = rollout.summary
    if summary.rejected:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    settled = now - st.st_mtime >= QUIET_S and not is_open(rollout.thread_id)
    unread = rollout.cursor.usage is None or rollout.cursor.usage.read_to < st.st_size
    if (st.st_size, st.st_mtime_ns, st.st_ino) == (summary.size, summary.mtime_ns, summary.ino) and not (
        settled and unread and summary.header and not compressed.is_compressed(path)
    ):
        if summary.internal:
            batch.internal.add(session_key(PROVIDER, rollout.thread_id))
        return None
    rollout.dirty = True
    summary.size, summary.mtime_ns, summary.ino = st.st_size, st.st_mtime_ns, st.st_ino
    if not summary.header and not _read_header(rollout, memories):
        return None
    if summary.internal:
        batch.internal.add(session_key(PROVIDER, rollout.thread_id))
        if summary.parent:
            _read_subagent_usage(rollout, now, settled)
        return None
    if compressed.is_compressed(path):
        # Finished and immutable: read once, whole, as a stream (its usage counted afresh).
        usage = UsageRead(None, now)
        life, rollout.cursor = compressed.read_whole(path, usage)
        rollout.usage = usage_change(True, usage, None)
    else:
        cursor = LifecycleCursor(rollout.cursor)
        before = rollout.cursor
        life = cursor.sample(path)
        rollout.cursor = cursor.state
        restarted = cursor.state is not before
        read = read_usage(path, cursor.state.usage, now, settled=settled)
        if read is not None:
            cursor.state.usage = read.usage
        rollout.usage = usage_change(restarted or (read is not None and read.restarted), read, rollout.usage)
    return rollout, life


def _read_subagent_usage(rollout: Rollout, now: float, settled: bool) -> None:
    """An internal agent's rollout is read for its usage alone (no lifecycle: it has no row)."""
    if compressed.is_compressed(rollout.path):
        usage = UsageRead(None, now, subagent=True)
        rollout.cursor = compressed.read_whole(rollout.path, usage)[1]
        rollout.usage = usage_change(True, usage, None)
        return
    read = read_usage(rollout.path, rollout.cursor.usage, now, settled=settled, subagent=True)
    if read is not None:
        rollout.cursor.usage = read.usage
        rollout.usage = usage_change(read.restarted, read, rollout.usage)


def _read_header(rollout: Rollout, memories: Path) -> bool:
    summary = rollout.summary
    header = read_header(rollout.path)
    if header is None:
        # Not written yet (Codex writes the first line lazily) or unreadable: try again when it changes.
        summary.size = summary.mtime_ns = summary.ino = -1
        return False
    summary.header = True
    if header.thread_id != rollout.thread_id:
        summary.rejected = True  # the name and the header disagree: not this thread's rollout
        return False
    summary.internal = is_internal(header, memories)
    summary.parent = header.parent_thread_id if summary.internal else None
    summary.cwd, summary.started = header.cwd, header.started
    summary.client = client_of(header.originator, header.source)
    if not summary.internal:
        summary.prompt_title = first_prompt_title(rollout.path)
    return True


def lifecycle_evidence(rollout: Rollout, life: Lifecycle, now: float) -> list[tuple[str, Evidence]]:
    """The evidence one read's lifecycle proves: the turn's boundary, an open turn seen by its records, the
    running tool or input request, and the activity that renews a running turn (at most every ACTIVITY_STEP_S)."""
    thread, path = rollout.thread_id, rollout.path
    out: list[tuple[str, Evidence]] = []

    def add(ident: str, kind: str, at: float, **fields: Any) -> None:
        out.append(
            (
                f"codex-rollout:{thread}:{ident}",
                Evidence(
                    provider=PROVIDER,
                    session_id=thread,
                    kind=kind,
                    at=at,
                    source="rollout",
                    transcript=path,
                    **fields,
                ),
            )
        )

    boundary = life.boundary
    if boundary is not None:
        at = boundary.at or boundary.started_at or now
        turn = boundary.turn_id or f"at{at:.3f}"
        kind = {
            "task_started": "RolloutTurnStarted",
            "task_complete": "RolloutTurnComplete",
            "turn_aborted": "RolloutTurnAborted",
        }[boundary.kind]
        add(
            f"{turn}:{boundary.kind}",
            kind,
            at,
            turn_id=boundary.turn_id,
            trigger=boundary.trigger,
            reason=boundary.reason,
            error=error_code(boundary.error, boundary.http_status),
            http_status=boundary.http_status,
        )
    if life.status == "busy" and life.start is None and life.turn_id:
        # The open turn is known by its records; its start lies beyond what was read so far.
        add(f"{life.turn_id}:seen", "RolloutTurnSeen", life.last_at or now, turn_id=life.turn_id)
    if life.status == "busy" and life.tool is not None:
        tool = life.tool
        at = tool.at or life.last_at or now
        name = hook_tool_name(tool.name)
        ident = f"{tool.call_id or f'at{at:.3f}'}:{'call' if tool.running else 'output'}"
        if tool.running and tool.name in INPUT_TOOLS:
            add(ident, "RolloutInputRequest", at, turn_id=life.turn_id, tool=name, tool_use_id=tool.call_id)
        else:
            add(
                ident,
                "RolloutTool",
                at,
                turn_id=life.turn_id,
                tool=name if tool.running else None,
                tool_use_id=tool.call_id,
            )
    summary = rollout.summary
    if life.status == "busy" and life.last_at is not None:
        if summary.activity_at is None or life.last_at - summary.activity_at >= ACTIVITY_STEP_S:
            summary.activity_at = life.last_at
            add(f"activity:{life.last_at:.3f}", "RolloutActivity", life.last_at, turn_id=life.turn_id)
    return out
