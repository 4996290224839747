"""Qwen Code's conversation as it shows it: which chat file holds a session's, and its records as displayed
messages (read on demand by `lunavect show` and the peeks, through the face; nothing of it is kept).

The file is found from what the collector stored (the path its reader keeps a cursor for), else from Qwen Code's
layout by the session id: `projects/<folder>/chats/<session id>.jsonl`. Its records are appended once each:
the person's prompts, the model's text and tool calls (`functionCall` parts), each call's result (a
`tool_result` record, joined to its call), an API error (from the client's own telemetry record) and an
approval refused or dismissed. The client's bookkeeping, thoughts and token counts do not show.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from lunavect.clients.qwen.layout import chat_files, session_of
from lunavect.clients.qwen.records import API_ERROR_EVENT, PERSON
from lunavect.conversation.message import RESULT_CHARS, TEXT_CHARS, Kind, Message, argument_summary, one_line, shorten
from lunavect.conversation.parts import Attach, Part, place
from lunavect.conversation.source import Source, stored_file
from lunavect.core.clients import QWEN
from lunavect.core.ids import is_session_id
from lunavect.evidence import file_cursors

_ARGUMENT_FIELDS = ("command", "file_path", "absolute_path", "path", "dir_path", "pattern", "query", "url", "prompt")


def _parts_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _assistant(record: dict[str, Any], at: str | None, offset: int) -> list[Part]:
    found: list[Part] = []
    parts = _parts_of(record)
    text = "".join(p["text"] for p in parts if isinstance(p.get("text"), str) and p.get("thought") is not True)
    if text.strip():
        found.append(Message(place(offset, 0), Kind.TEXT, shorten(text, TEXT_CHARS), at=at))
    for index, part in enumerate(parts, start=1):
        call = part.get("functionCall")
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            continue
        call_id = call.get("id") if isinstance(call.get("id"), str) else None
        summary = argument_summary(call.get("args"), _ARGUMENT_FIELDS)
        found.append(Message(place(offset, index), Kind.TOOL, summary, tool=call["name"], call_id=call_id, at=at))
    return found


def _result(record: dict[str, Any], at: str | None, offset: int) -> list[Part]:
    outcome = record.get("toolCallResult")
    if not isinstance(outcome, dict) or not isinstance(outcome.get("callId"), str):
        return []
    text = ""
    for part in _parts_of(record):
        response = part.get("functionResponse", {}).get("response") if isinstance(part, dict) else None
        if isinstance(response, dict):
            value = response.get("output", response.get("error"))
            text = value if isinstance(value, str) else ""
    failed = outcome.get("status") in ("error", "cancelled")
    return [Attach(place(offset, 0), outcome["callId"], shorten(text, RESULT_CHARS), failed=failed, at=at)]


def _api_error(record: dict[str, Any], at: str | None, offset: int) -> list[Part]:
    payload = record.get("systemPayload")
    if isinstance(payload, str):
        try:
            payload = json.loads(payload)
        except ValueError:
            return []
    event = payload.get("uiEvent") if isinstance(payload, dict) else None
    if not isinstance(event, dict) or event.get("event.name") != API_ERROR_EVENT:
        return []
    found = event.get("error_message")
    message = found if isinstance(found, str) else "API error"
    return [Message(place(offset, 0), Kind.ERROR, one_line(message, RESULT_CHARS), at=at)]


def parts(record: Any, offset: int, *, sidechain: bool = False) -> list[Part]:
    """The parts one chat record shows."""
    if not isinstance(record, dict) or not isinstance(record.get("type"), str):
        return []
    at = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
    kind = record["type"]
    if kind == "user" and record.get("provenance") == PERSON:
        text = "\n".join(p["text"] for p in _parts_of(record) if isinstance(p.get("text"), str)).strip()
        return [Message(place(offset, 0), Kind.PROMPT, shorten(text, TEXT_CHARS), at=at)] if text else []
    if kind == "assistant":
        return _assistant(record, at, offset)
    if kind == "tool_result":
        return _result(record, at, offset)
    if kind == "system" and record.get("subtype") == "ui_telemetry":
        return _api_error(record, at, offset)
    return []


def conversation_at(path: Path) -> Source:
    return Source(path, QWEN.id, parts)


def _stored(conn: sqlite3.Connection | None, session_id: str) -> Path | None:
    return stored_file(conn, lambda c: file_cursors.paths_of(c, QWEN.id, session_id))


def _in_layout(session_id: str) -> Path | None:
    return next((Path(path) for path, _st in chat_files() if session_of(path) == session_id), None)


def find_conversation(session_id: str, conn: sqlite3.Connection | None = None) -> Source | None:
    """The chat file a session's conversation is read from, or None when this machine holds none (or
    `session_id` is no id)."""
    if not is_session_id(session_id):
        return None
    path = _stored(conn, session_id) or _in_layout(session_id)
    return conversation_at(path) if path is not None else None
