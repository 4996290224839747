"""Reading one GitHub Copilot CLI events file incrementally: what was appended since the last read, as evidence,
the file's summary (session, title, folder, latest usage) and the tokens it added.

The cursor is `lunavect.files.tail`'s, so a file rewritten or replaced is read again from its start, and its
tokens with it. Each record's evidence has an id made of the session and the record's own id (every record
carries a unique one), the same however often it is read. A read hands over only the activity from its last
prompt on: what came before a newer prompt is superseded (the rules would ignore it), so a long history costs a
few rows. A sub-agent's records (`agentId`) are its session's work: their tokens are counted as the sub-agent's,
their activity never moves the session, and the sub-agent's id is reported so that its own hooks never make a
row of it.
"""

from __future__ import annotations

from typing import TypeAlias

import msgspec

from lunavect.chats.file_read import KINDS, MAX_LINE_BYTES, SOURCE, FileRead, add_meta, fold
from lunavect.clients.copilot.layout import session_of
from lunavect.clients.copilot.records import Line, read_line
from lunavect.core.ids import is_session_id
from lunavect.core.model import Evidence
from lunavect.files.tail import Cursor, read_appended
from lunavect.usage import ledger

PROVIDER = "copilot"
# How many of a session's sub-agents a summary remembers (their ids are internal sessions, never rows).
AGENTS_KEPT = 64


class Summary(msgspec.Struct):
    """What is known of an events file once read to its cursor (kept with it in the store)."""

    session_id: str | None = None
    started: float | None = None
    last_at: float | None = None
    cwd: str | None = None
    title: str | None = None
    name: str | None = None
    sent_meta: str | None = None
    model: str | None = None
    context: int | None = None
    window: int | None = None
    usage_at: float | None = None
    agents: list[str] = []


# Copilot CLI's read is the shared one (`lunavect.chats.file_read`) over its summary.
EventsRead: TypeAlias = FileRead[Summary]


def read_events(
    path: str, stored: tuple[Cursor, Summary] | None, budget: int, name: str | None, now: float
) -> EventsRead:
    """Read what was appended to the file since `stored` (or all of it), at most about `budget` bytes; `name` is
    the title the session's workspace.yaml gives (None when it names none)."""
    cursor, summary = stored if stored is not None else (None, Summary())
    found = read_appended(path, cursor, budget, MAX_LINE_BYTES)
    summary = Summary() if found.restarted else msgspec.structs.replace(summary, agents=list(summary.agents))
    session = session_of(path)
    summary.session_id = session if is_session_id(session) else None
    summary.name = name
    read = EventsRead(
        path, found.cursor, summary, restarted=found.restarted, skipped=found.skipped, partial=found.partial
    )
    fold(read, found.lines, read_line, _take)
    add_meta(PROVIDER, read, summary.name or summary.title, summary.cwd, now)
    read.bytes_read = found.bytes_read
    return read


def _take(read: EventsRead, line: Line) -> list[tuple[str, Evidence]]:
    _learn(read, line)
    sid = read.summary.session_id
    if sid is None or line.at is None or line.agent is not None or line.record_id is None:
        return []
    return evidence_of(sid, line)


def _learn(read: EventsRead, line: Line) -> None:
    summary = read.summary
    if line.at is not None:
        summary.last_at = max(line.at, summary.last_at or line.at)
    if line.kind == "meta":
        summary.started = summary.started or line.at
        summary.cwd = line.cwd or summary.cwd
    elif line.kind == "prompt" and summary.title is None and line.agent is None:
        summary.title = line.title
    elif line.kind == "subagent" and line.agent and line.agent not in summary.agents:
        summary.agents = [*summary.agents, line.agent][-AGENTS_KEPT:]
    elif line.kind == "usage" and line.tokens is not None:
        read.deltas.add(ledger.quarter_of(line.at, line.at or 0.0), line.model, line.agent is not None, line.tokens)
        if line.agent is None and line.at is not None and (summary.usage_at is None or line.at >= summary.usage_at):
            summary.model = line.model or summary.model
            summary.context, summary.window, summary.usage_at = line.context, line.window, line.at


def evidence_of(session_id: str, line: Line) -> list[tuple[str, Evidence]]:
    """The evidence of one record, with its stable id (the record's own)."""
    kind = KINDS.get(line.kind)
    if kind is None or line.at is None:
        return []
    evidence = Evidence(
        PROVIDER,
        session_id,
        kind,
        line.at,
        SOURCE,
        tool=line.tool if kind == "TranscriptToolUse" else None,
        tool_use_id=line.call_id,
        error=line.error,
        error_detail=line.error_detail,
        http_status=line.http_status,
    )
    return [(f"copilot-events:{session_id}:{line.record_id}", evidence)]


__all__ = ["PROVIDER", "Cursor", "EventsRead", "Summary", "read_events"]
