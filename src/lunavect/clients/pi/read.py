"""Reading one Pi session file incrementally: what was appended since the last read, as evidence, the file's
summary (session, title, folder, latest usage) and the tokens it added.

The cursor is `lunavect.files.tail`'s, so a file rewritten or replaced is read again from its start, and its
tokens with it. Each entry's evidence has an id made of the session and the entry's own id (unique in its file),
the same however often it is read. A read hands over only the activity from its last prompt on: what came before
a newer prompt is superseded (the rules would ignore it), so a long history costs a few rows.
"""

from __future__ import annotations

import os
from typing import TypeAlias

import msgspec

from lunavect.chats.file_read import KINDS, MAX_LINE_BYTES, SOURCE, FileRead, add_meta, fold
from lunavect.clients.pi.records import Line, read_line
from lunavect.core.clients import PI
from lunavect.core.ids import is_session_id
from lunavect.core.model import Evidence
from lunavect.files.tail import Cursor, read_appended
from lunavect.usage import ledger


class Summary(msgspec.Struct):
    """What is known of a session file once read to its cursor (kept with it in the store)."""

    session_id: str | None = None
    started: float | None = None
    last_at: float | None = None
    cwd: str | None = None
    title: str | None = None
    name: str | None = None
    sent_meta: str | None = None
    model: str | None = None
    context: int | None = None
    usage_at: float | None = None


# Pi's read is the shared one (`lunavect.chats.file_read`) over Pi's summary.
SessionRead: TypeAlias = FileRead[Summary]


def named_session(path: str) -> str | None:
    """The session id its file's name ends with (`<time>_<session id>.jsonl`), or None."""
    stem = os.path.basename(path).removesuffix(".jsonl")
    sid = stem.rpartition("_")[2]
    return sid if is_session_id(sid) else None


def read_session(path: str, stored: tuple[Cursor, Summary] | None, budget: int, now: float) -> SessionRead:
    """Read what was appended to the file since `stored` (or all of it), at most about `budget` bytes."""
    cursor, summary = stored if stored is not None else (None, Summary())
    found = read_appended(path, cursor, budget, MAX_LINE_BYTES)
    summary = Summary() if found.restarted else msgspec.structs.replace(summary)
    summary.session_id = summary.session_id or named_session(path)
    read = SessionRead(
        path, found.cursor, summary, restarted=found.restarted, skipped=found.skipped, partial=found.partial
    )
    fold(read, found.lines, read_line, _take)
    add_meta(PI.id, read, summary.name or summary.title, summary.cwd, now)
    read.bytes_read = found.bytes_read
    return read


def _take(read: SessionRead, line: Line) -> list[tuple[str, Evidence]]:
    _learn(read, line)
    sid = read.summary.session_id
    if sid is None or line.at is None or line.record_id is None:
        return []
    return evidence_of(sid, line)


def _learn(read: SessionRead, line: Line) -> None:
    summary = read.summary
    if line.at is not None:
        summary.last_at = max(line.at, summary.last_at or line.at)
    if line.kind == "meta":
        summary.session_id = line.session_id or summary.session_id
        summary.started = summary.started or line.at
        summary.cwd = line.cwd or summary.cwd
    elif line.kind == "name":
        summary.name = line.title
    elif line.kind == "prompt" and summary.title is None:
        summary.title = line.title
    if line.tokens is not None:
        read.deltas.add(ledger.quarter_of(line.at, line.at or 0.0), line.model, False, line.tokens)
        if line.at is not None and (summary.usage_at is None or line.at >= summary.usage_at):
            summary.model = line.model or summary.model
            summary.context, summary.usage_at = line.context, line.at


def evidence_of(session_id: str, line: Line) -> list[tuple[str, Evidence]]:
    """The evidence of one entry, with its stable ids (the entry's own, and each tool call's)."""
    assert line.at is not None
    if line.kind == "tools":
        return [
            (
                f"pi-entries:{session_id}:{line.record_id}:{call.call_id}",
                Evidence(
                    PI.id, session_id, "TranscriptToolUse", line.at, SOURCE, tool=call.tool, tool_use_id=call.call_id
                ),
            )
            for call in line.calls
        ]
    kind = KINDS.get(line.kind)
    if kind is None:
        return []
    evidence = Evidence(
        PI.id,
        session_id,
        kind,
        line.at,
        SOURCE,
        tool_use_id=line.call_id,
        error_detail=line.error_detail,
        http_status=line.http_status,
    )
    return [(f"pi-entries:{session_id}:{line.record_id}", evidence)]
