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

import hashlib
from dataclasses import dataclass, field

import msgspec

from lunavect.clients.copilot.layout import session_of
from lunavect.clients.copilot.records import Line, read_line
from lunavect.core.ids import is_session_id
from lunavect.core.model import Evidence
from lunavect.files.tail import Cursor, read_appended
from lunavect.usage import ledger

PROVIDER = "copilot"
SOURCE = "transcript"
# A line longer than this (a huge tool result, the model's snapshot of the whole conversation) is passed over.
MAX_LINE_BYTES = 8 << 20
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


@dataclass
class EventsRead:
    path: str
    cursor: Cursor
    summary: Summary
    evidence: list[tuple[str, Evidence]] = field(default_factory=list)
    deltas: ledger.Deltas = field(default_factory=ledger.Deltas)
    restarted: bool = False
    bytes_read: int = 0
    # Lines this read skipped unread (too long, not a record): counted, never raised.
    skipped: int = 0
    # More complete lines remain past the cursor (the byte budget ran out).
    partial: bool = False

    @property
    def session_id(self) -> str | None:
        return self.summary.session_id


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
    _fold(read, found.lines, now)
    read.bytes_read = found.bytes_read
    return read


def _fold(read: EventsRead, lines: list[bytes], now: float) -> None:
    summary = read.summary
    sid = summary.session_id
    activity: list[tuple[str, Evidence]] = []
    last_prompt = 0
    for data in lines:
        if not data.strip():
            continue
        line = read_line(data)
        if line is None:
            read.skipped += 1
            continue
        _learn(read, line)
        if sid is None or line.at is None or line.agent is not None or line.record_id is None:
            continue
        found = evidence_of(sid, line)
        if line.kind == "prompt" and found:
            last_prompt = len(activity)
        activity.extend(found)
    read.evidence.extend(activity[last_prompt:])
    meta = meta_evidence(read, now)
    if meta is not None:
        read.evidence.insert(0, meta)


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


_KINDS = {
    "prompt": "TranscriptPrompt",
    "reply": "TranscriptResponse",
    "interrupt": "TranscriptInterrupt",
    "api_error": "TranscriptApiError",
    "compacted": "TranscriptCompacted",
    "tool_use": "TranscriptToolUse",
    "tool_result": "TranscriptToolResult",
}


def evidence_of(session_id: str, line: Line) -> list[tuple[str, Evidence]]:
    """The evidence of one record, with its stable id (the record's own)."""
    kind = _KINDS.get(line.kind)
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


def meta_evidence(read: EventsRead, now: float) -> tuple[str, Evidence] | None:
    """The session's title, folder and file, when they changed: never activity (its time is the session's own)."""
    summary = read.summary
    sid = summary.session_id
    if sid is None:
        return None
    title = summary.name or summary.title
    values = (title, summary.cwd, read.path)
    key = hashlib.blake2b(repr(values).encode(), digest_size=8).hexdigest()
    if key == summary.sent_meta:
        return None
    summary.sent_meta = key
    at = summary.started or summary.last_at or now
    evidence = Evidence(PROVIDER, sid, "TranscriptMeta", at, SOURCE, title=title, cwd=summary.cwd, transcript=read.path)
    return f"copilot-meta:{sid}:{key}", evidence


__all__ = ["PROVIDER", "Cursor", "EventsRead", "Summary", "read_events"]
