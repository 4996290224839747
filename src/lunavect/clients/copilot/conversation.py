"""GitHub Copilot CLI's conversation as it shows it: which events file holds a session's, and its records as
displayed messages (read on demand by `lunavect show` and the peeks, through the face; nothing of it is kept).

The file is `session-state/<session id>/events.jsonl` (the collector's stored path first, as for every client).
Prompts (`user.message`, as typed: not the dated text sent to the model), the model's text and tool calls
(`assistant.message`), each call's result (`tool.execution_complete`, joined to its call), a failed turn
(`session.error`), an Esc (`abort`) and a compaction show; a sub-agent's records (`agentId`), hook runs, the
model's own snapshots and token counts do not.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from lunavect.clients.copilot.layout import EVENTS_FILE, sessions_dir
from lunavect.conversation.message import (
    RESULT_CHARS,
    TEXT_CHARS,
    Kind,
    Message,
    argument_summary,
    one_line,
    shorten,
)
from lunavect.conversation.parts import Attach, Part, place
from lunavect.conversation.source import Source, found_file, stored_file
from lunavect.core.clients import COPILOT
from lunavect.evidence import file_cursors

_ARGUMENT_FIELDS = ("command", "path", "pattern", "query", "url", "description", "message", "prompt")


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _calls(data: dict[str, Any], offset: int, at: str | None) -> list[Part]:
    found: list[Part] = []
    text = _text(data.get("content"))
    if text:
        found.append(Message(place(offset, 0), Kind.TEXT, shorten(text, TEXT_CHARS), at=at))
    requests = data.get("toolRequests")
    for index, request in enumerate(requests if isinstance(requests, list) else [], start=1):
        if not isinstance(request, dict) or not isinstance(request.get("name"), str):
            continue
        call_id = request.get("toolCallId") if isinstance(request.get("toolCallId"), str) else None
        summary = argument_summary(request.get("arguments"), _ARGUMENT_FIELDS)
        found.append(Message(place(offset, index), Kind.TOOL, summary, tool=request["name"], call_id=call_id, at=at))
    return found


def _result(data: dict[str, Any], offset: int, at: str | None) -> list[Part]:
    call_id = data.get("toolCallId")
    if not isinstance(call_id, str):
        return []
    failed = data.get("success") is not True
    shown = data.get("error") if failed else data.get("result")
    text = _text(shown.get("message") if failed and isinstance(shown, dict) else None)
    if not failed and isinstance(shown, dict):
        text = _text(shown.get("content"))
    return [Attach(place(offset, 0), call_id, shorten(text, RESULT_CHARS), failed, at)]


def parts(record: Any, offset: int, *, sidechain: bool = False) -> list[Part]:
    """The parts one record shows (a sub-agent's records are its session's work, not its conversation)."""
    if not isinstance(record, dict) or record.get("agentId") is not None or not isinstance(record.get("data"), dict):
        return []
    kind, data = record.get("type"), record["data"]
    at = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
    here = place(offset, 0)
    if kind == "user.message":
        text = _text(data.get("content"))
        return [Message(here, Kind.PROMPT, shorten(text, TEXT_CHARS), at=at)] if text else []
    if kind == "assistant.message":
        return _calls(data, offset, at)
    if kind == "tool.execution_complete":
        return _result(data, offset, at)
    if kind == "session.error":
        text = _text(data.get("message"))
        return [Message(here, Kind.ERROR, one_line(text, RESULT_CHARS), at=at)] if text else []
    if kind == "abort":
        return [Message(here, Kind.TASK, "Interrupted", at=at)]
    if kind == "session.compaction_complete":
        return [Message(here, Kind.COMPACTION, "Context compacted", at=at)]
    return []


def conversation_at(path: Path) -> Source:
    return Source(path, COPILOT.id, parts)


def _stored(conn: sqlite3.Connection | None, session_id: str) -> Path | None:
    return stored_file(conn, lambda c: file_cursors.paths_of(c, COPILOT.id, session_id))


def _in_layout(session_id: str) -> Path | None:
    path = sessions_dir() / session_id / EVENTS_FILE
    return path if path.is_file() else None


def find_conversation(session_id: str, conn: sqlite3.Connection | None = None) -> Source | None:
    """The events file a session's conversation is read from, or None when this machine holds none (or
    `session_id` is no id)."""
    path = found_file(session_id, lambda sid: _stored(conn, sid), _in_layout)
    return conversation_at(path) if path is not None else None
