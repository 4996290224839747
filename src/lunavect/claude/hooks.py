"""Claude Code hook records (as the shim spooled them) to evidence.

The shim already dropped every private field; this only gives the remaining ones their types. Unknown
events are kept as evidence of their kind: the rules ignore what they do not know.
"""

from __future__ import annotations

from lunavect.core.model import BackgroundTask, Evidence


def _task(raw: object) -> BackgroundTask | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("kind"), str):
        return None
    return BackgroundTask(
        kind=raw["kind"],
        id=raw.get("id") if isinstance(raw.get("id"), str) else None,
        status=raw.get("status") if isinstance(raw.get("status"), str) else None,
        service=raw.get("service") is True,
    )


def _tasks(raw: object) -> tuple[BackgroundTask, ...]:
    if not isinstance(raw, list):
        return ()
    return tuple(t for t in (_task(item) for item in raw) if t is not None)


def _str(record: dict, key: str) -> str | None:
    value = record.get(key)
    return value if isinstance(value, str) else None


def evidence_from_record(record: dict) -> Evidence | None:
    """The evidence of one spool record, or None when it names no session."""
    session_id = _str(record, "session")
    event = _str(record, "event")
    at = record.get("t")
    if not session_id or not event or not isinstance(at, (int, float)):
        return None
    ended = tuple(
        BackgroundTask(kind="", id=item.get("id") or item.get("tool_use_id"), status=item.get("status"))
        for item in record.get("bg_end") or ()
        if isinstance(item, dict)
    )
    pid = record.get("pid")
    pstart = record.get("pstart")
    return Evidence(
        provider=_str(record, "client") or "claude",
        session_id=session_id,
        kind=event,
        at=float(at),
        source="hook",
        tool=_str(record, "tool"),
        tool_use_id=_str(record, "tool_use_id"),
        agent_id=_str(record, "agent_id"),
        agent_type=_str(record, "agent_type"),
        prompt_id=_str(record, "prompt_id"),
        turn_id=_str(record, "turn_id"),
        start_source=_str(record, "source"),
        trigger=_str(record, "trigger"),
        reason=_str(record, "reason"),
        notification=_str(record, "ntype"),
        error=_str(record, "error"),
        error_detail=_str(record, "error_detail"),
        question=record.get("question") is True,
        interrupt=record.get("interrupt") is True,
        notification_only=record.get("notification_only") is True,
        background=_tasks(record["bg"]) if "bg" in record else None,
        background_started=_task(record.get("bg_start")),
        background_ended=ended,
        crons=record.get("crons") if isinstance(record.get("crons"), int) else 0,
        pid=pid if isinstance(pid, int) else None,
        pstart=float(pstart) if isinstance(pstart, (int, float)) else None,
        tty=_str(record, "tty"),
        cwd=_str(record, "cwd"),
        transcript=_str(record, "transcript"),
        title=_str(record, "title"),
        mode=_str(record, "mode"),
    )
