"""Gemini CLI's conversation as it shows it: which chat file holds a session's, and its records as displayed
messages (read on demand by `lunavect show` and the peeks, through the face; nothing of it is kept).

The file is found from what the collector stored (the path its reader keeps a cursor for), else from Gemini
CLI's layout by the session id: `tmp/<slug>/chats/session-<time>-<first 8 of the id>.jsonl`, whose first line
names the whole id. The client writes a message again each time it changes (its tokens, its finished tool
calls): each message carries its id as its `key`, so the window shows it once, in its latest form. Prompts, the
model's text, tool calls with their results, API errors and cancels show; the client's own context, the tools'
results sent back as `user` messages (shown on their calls already), thoughts and token counts do not.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from lunavect.clients.gemini.layout import chat_files, is_legacy
from lunavect.clients.gemini.records import API_ERROR_OPENING, CANCELLED, CONTEXT_OPENING
from lunavect.conversation.message import (
    RESULT_CHARS,
    TEXT_CHARS,
    Kind,
    Message,
    argument_summary,
    one_line,
    shorten,
)
from lunavect.conversation.parts import Part, place
from lunavect.conversation.source import Source, stored_file
from lunavect.core.clients import GEMINI
from lunavect.core.ids import is_session_id
from lunavect.evidence import file_cursors
from lunavect.files.tail import first_line

_ARGUMENT_FIELDS = ("command", "file_path", "absolute_path", "path", "dir_path", "pattern", "query", "url", "prompt")


def call_summary(args: Any) -> str:
    """One line of a tool call's arguments: the command it runs, else its main field."""
    return argument_summary(args, _ARGUMENT_FIELDS)


def _result(call: dict[str, Any]) -> str:
    """A finished call's output, from the function response the client sent back."""
    result = call.get("result")
    for part in result if isinstance(result, list) else []:
        response = part.get("functionResponse", {}).get("response") if isinstance(part, dict) else None
        if isinstance(response, dict):
            value = response.get("output", response.get("error"))
            if isinstance(value, str):
                return shorten(
                    value.replace("<untrusted_context>", "").replace("</untrusted_context>", ""), RESULT_CHARS
                )
    return ""


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return []


def _gemini(record: dict[str, Any], key: str, at: str | None, offset: int) -> list[Part]:
    found: list[Part] = []
    text = "".join(_texts(record.get("content"))).strip()
    if text:
        found.append(Message(place(offset, 0), Kind.TEXT, shorten(text, TEXT_CHARS), at=at, key=f"{key}:text"))
    calls = record.get("toolCalls")
    for index, call in enumerate(calls if isinstance(calls, list) else [], start=1):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            continue
        call_id = call.get("id") if isinstance(call.get("id"), str) else None
        failed = call.get("status") in ("error", "cancelled")
        found.append(
            Message(
                place(offset, index),
                Kind.TOOL,
                call_summary(call.get("args")),
                tool=call["name"],
                call_id=call_id,
                result=_result(call) or None,
                failed=failed,
                at=at,
                key=f"{key}:call:{call_id or index}",
            )
        )
    return found


def parts(record: Any, offset: int, *, sidechain: bool = False) -> list[Part]:
    """The parts one chat record shows (a sub-agent's conversation is a file of its own)."""
    if not isinstance(record, dict) or not isinstance(record.get("id"), str) or not isinstance(record.get("type"), str):
        return []
    key, kind = record["id"], record["type"]
    at = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
    here = place(offset, 0)
    if kind == "gemini":
        return _gemini(record, key, at, offset)
    texts = _texts(record.get("content"))
    text = "\n".join(texts).strip()
    if kind == "user":
        content = record.get("content")
        results = isinstance(content, list) and any(isinstance(p, dict) and "functionResponse" in p for p in content)
        if not text or results or text.startswith(CONTEXT_OPENING):
            return []
        return [Message(here, Kind.PROMPT, shorten(text, TEXT_CHARS), at=at, key=key)]
    if kind == "error" and text:
        shown = (
            text.removeprefix(API_ERROR_OPENING + ": ").removesuffix("]")
            if text.startswith(API_ERROR_OPENING)
            else text
        )
        return [Message(here, Kind.ERROR, one_line(shown, RESULT_CHARS), at=at, key=key)]
    if kind == "info" and text == CANCELLED:
        return [Message(here, Kind.TASK, "Request cancelled", at=at, key=key)]
    if kind == "info" and record.get("content") == "":
        return [Message(here, Kind.COMPACTION, "Context compressed", at=at, key=key)]
    return []


def conversation_at(path: Path) -> Source:
    return Source(path, GEMINI.id, parts)


def _stored(conn: sqlite3.Connection | None, session_id: str) -> Path | None:
    return stored_file(conn, lambda c: file_cursors.paths_of(c, GEMINI.id, session_id))


def _first_line_names(path: str, session_id: str) -> bool:
    head = first_line(path)
    if head is None:
        return False
    try:
        meta = json.loads(head)
    except ValueError:
        return False
    return isinstance(meta, dict) and meta.get("sessionId") == session_id


def _in_layout(session_id: str) -> Path | None:
    short = session_id[:8]
    for path, _st in chat_files():
        if path.endswith(f"-{short}.jsonl") and _first_line_names(path, session_id):
            return Path(path)
    return None


def find_conversation(session_id: str, conn: sqlite3.Connection | None = None) -> Source | None:
    """The chat file a session's conversation is read from, or None when this machine holds none (or
    `session_id` is no id)."""
    if not is_session_id(session_id):
        return None
    path = _stored(conn, session_id) or _in_layout(session_id)
    if path is None or is_legacy(str(path)):
        return None  # an older whole-file chat (`legacy.py`) is read as history only, its messages not shown
    return conversation_at(path)
