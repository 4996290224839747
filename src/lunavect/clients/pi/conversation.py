"""Pi's conversation as it shows it: which session file holds a session's, and its entries as displayed messages
(read on demand by `lunavect show` and the peeks, through the face; nothing of it is kept).

The file is the collector's stored path first (as for every client), else the one under the sessions folder whose
name ends with the session's id. Prompts, the model's text and tool calls, each call's result (joined to its
call), a failed turn (Pi's error message), an Esc and a compaction show, in the file's order: every branch a
person's `/tree` left behind shows too, where Pi shows only the current one.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from lunavect.clients.pi import places
from lunavect.clients.pi.records import first_text
from lunavect.conversation.message import RESULT_CHARS, TEXT_CHARS, Kind, Message, argument_summary, one_line, shorten
from lunavect.conversation.parts import Attach, Part, place
from lunavect.conversation.source import Source, found_file, stored_file
from lunavect.core.clients import PI
from lunavect.evidence import file_cursors

_ARGUMENT_FIELDS = ("command", "path", "pattern", "query", "url", "description")


def _text(value: Any) -> str:
    text = first_text(value)
    return text.strip() if text else ""


def _assistant(message: dict[str, Any], offset: int, at: str | None) -> list[Part]:
    found: list[Part] = []
    blocks = message.get("content")
    for index, block in enumerate(blocks if isinstance(blocks, list) else []):
        if not isinstance(block, dict):
            continue
        here = place(offset, index)
        if block.get("type") == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            found.append(Message(here, Kind.TEXT, shorten(block["text"].strip(), TEXT_CHARS), at=at))
        elif block.get("type") == "toolCall" and isinstance(block.get("name"), str):
            call_id = block.get("id") if isinstance(block.get("id"), str) else None
            summary = argument_summary(block.get("arguments"), _ARGUMENT_FIELDS)
            found.append(Message(here, Kind.TOOL, summary, tool=block["name"], call_id=call_id, at=at))
    reason = message.get("stopReason")
    if reason == "error" and isinstance(message.get("errorMessage"), str):
        found.append(Message(place(offset, 999), Kind.ERROR, one_line(message["errorMessage"], RESULT_CHARS), at=at))
    elif reason == "aborted":
        found.append(Message(place(offset, 999), Kind.TASK, "Interrupted", at=at))
    return found


def parts(record: Any, offset: int, *, sidechain: bool = False) -> list[Part]:
    """The parts one entry shows."""
    if not isinstance(record, dict):
        return []
    at = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
    here = place(offset, 0)
    if record.get("type") == "compaction":
        return [Message(here, Kind.COMPACTION, "Context compacted", at=at)]
    message = record.get("message")
    if record.get("type") != "message" or not isinstance(message, dict):
        return []
    role = message.get("role")
    if role == "user":
        text = _text(message.get("content"))
        return [Message(here, Kind.PROMPT, shorten(text, TEXT_CHARS), at=at)] if text else []
    if role == "assistant":
        return _assistant(message, offset, at)
    if role == "toolResult" and isinstance(message.get("toolCallId"), str):
        failed = message.get("isError") is True
        return [Attach(here, message["toolCallId"], shorten(_text(message.get("content")), RESULT_CHARS), failed, at)]
    return []


def conversation_at(path: Path) -> Source:
    return Source(path, PI.id, parts)


def _stored(conn: sqlite3.Connection | None, session_id: str) -> Path | None:
    return stored_file(conn, lambda c: file_cursors.paths_of(c, PI.id, session_id))


def _in_layout(session_id: str) -> Path | None:
    suffix = f"_{session_id}.jsonl"
    for path, _st in places.session_files(places.sessions_dir()):
        if os.path.basename(path).endswith(suffix):
            return Path(path)
    return None


def find_conversation(session_id: str, conn: sqlite3.Connection | None = None) -> Source | None:
    """The session file a session's conversation is read from, or None when this machine holds none (or
    `session_id` is no id)."""
    path = found_file(session_id, lambda sid: _stored(conn, sid), _in_layout)
    return conversation_at(path) if path is not None else None
