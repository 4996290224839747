"""The one spool record format, as the collector reads it: a line the hook shim wrote, to evidence.

The shim (standard library only, so it cannot import this) writes one JSON object per hook event with the
field names below; this declares them once, with their types, for both clients. Only the fields some rule
reads are declared: anything else on the line (the format version, fields kept for people reading the
spool by hand) is skipped when decoding, so the shim may add fields without breaking a collector.
A line that is not this shape is refused whole, never half-read.
"""

from __future__ import annotations

import msgspec

from lunavect.core import bounded_json
from lunavect.core.bounds import count
from lunavect.core.clients import CLAUDE
from lunavect.core.ids import is_session_id
from lunavect.core.model import BackgroundTask, Evidence
from lunavect.core.times import bounded


class Task(msgspec.Struct, frozen=True):
    """A piece of background work a Stop lists, or a PostToolUse started: its kind and id, never its text."""

    kind: str
    id: str | None = None
    status: str | None = None
    service: bool = False


class SpoolRecord(msgspec.Struct, frozen=True):
    """One spool line. `rejected` (a counted payload the shim could not use) carries no event."""

    id: str | None = None
    client: str = CLAUDE.id  # a line of an early shim names no client: those were Claude Code's
    t: float | None = None
    rejected: str | None = None
    event: str | None = None
    session: str | None = None
    tool: str | None = None
    tool_use_id: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    turn_id: str | None = None
    source: str | None = None
    trigger: str | None = None
    reason: str | None = None
    ntype: str | None = None
    # The kind of request a notification names (Gemini CLI's `details.type`); read by its client's face.
    detail: str | None = None
    error: str | None = None
    error_detail: str | None = None
    question: bool = False
    # A prompt with no text: the client's own going on after its tools (Qwen Code), not the person's prompt.
    continuation: bool = False
    interrupt: bool = False
    notification_only: bool = False
    bg: list[Task] | None = None
    bg_start: Task | None = None
    pid: int | None = None
    pstart: float | None = None
    tty: str | None = None
    cwd: str | None = None
    transcript: str | None = None
    title: str | None = None
    # The model's context window a turn's end names (Qwen Code's `Stop`: `context_limit`).
    window: int | None = None


_decoder = msgspec.json.Decoder(SpoolRecord)


def decode(line: bytes) -> SpoolRecord:
    """The record of one line; raises msgspec.DecodeError when the line is not a spool record (nested too
    deep included: the fields it does not declare are skipped, and skipping recurses too)."""
    return bounded_json.decode(_decoder, line)


def _task(task: Task) -> BackgroundTask:
    return BackgroundTask(kind=task.kind, id=task.id, status=task.status, service=task.service)


def evidence(record: SpoolRecord) -> Evidence | None:
    """The evidence of one record, or None when it names no session. Unknown events are kept as evidence
    of their kind: the rules ignore what they do not know."""
    at = bounded(record.t)
    if not is_session_id(record.session) or not record.event or at is None:
        return None
    assert record.session is not None
    return Evidence(
        provider=record.client or CLAUDE.id,
        session_id=record.session,
        kind=record.event,
        at=at,
        source="hook",
        tool=record.tool,
        tool_use_id=record.tool_use_id,
        agent_id=record.agent_id,
        agent_type=record.agent_type,
        turn_id=record.turn_id,
        start_source=record.source,
        trigger=record.trigger,
        reason=record.reason,
        notification=record.ntype,
        error=record.error,
        error_detail=record.error_detail,
        question=record.question,
        interrupt=record.interrupt,
        notification_only=record.notification_only,
        background=tuple(_task(t) for t in record.bg) if record.bg is not None else None,
        background_started=_task(record.bg_start) if record.bg_start else None,
        pid=record.pid,
        pstart=bounded(record.pstart),
        tty=record.tty,
        cwd=record.cwd,
        transcript=record.transcript,
        title=record.title,
        context_window=count(record.window) or None,
    )
