"""Codex's conversation as it shows it: which rollout holds a thread's, and its records as displayed messages
(read on demand by `lunavect show` and the peeks, through the face; nothing of it is kept).

The rollout is found from what the collector stored (the path its reader keeps a cursor for), else from
Codex's layout by the thread id: `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, or `.jsonl.zst` once Codex
compressed it, in `sessions` or `archived_sessions`.

A prompt is recorded twice by some versions (a `user_message` event, then the model input item) and only as
the input item by others; the item is an `Echo`, shown unless the event just before it said the same. Input
items that are the client's own context (environment, instructions) show nothing, nor do reasoning, token
counts and turn contexts. Sub-agent threads have rollouts of their own.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from lunavect import paths
from lunavect.conversation.message import RESULT_CHARS, TEXT_CHARS, Kind, Message, one_line, shorten
from lunavect.conversation.parts import Attach, Echo, Part, place
from lunavect.conversation.source import Source, found_file, stored_file
from lunavect.core import bounded_json
from lunavect.core.clients import CODEX

# The start of input items Codex writes itself, not the person.
_CONTEXT_OPENINGS = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<turn_aborted>", "<user_shell")
_ARGUMENT_FIELDS = ("cmd", "command", "path", "file_path", "query", "pattern", "url", "prompt", "message")


def _texts(content: Any) -> str:
    if not isinstance(content, list):
        return ""
    return "".join(block["text"] for block in content if isinstance(block, dict) and isinstance(block.get("text"), str))


def call_summary(arguments: Any) -> str:
    """One line of a function call's arguments: the command it runs, else its main field."""
    value = arguments
    if isinstance(arguments, str):
        try:
            value = bounded_json.loads(arguments)  # a string of JSON inside the line: bounded on its own
        except ValueError:
            return one_line(arguments)
    if isinstance(value, dict):
        for key in _ARGUMENT_FIELDS:
            field = value.get(key)
            if isinstance(field, list) and all(isinstance(item, str) for item in field):
                return one_line(" ".join(field))
            if isinstance(field, str) and field.strip():
                return one_line(field)
        return one_line(json.dumps(value, ensure_ascii=False, separators=(",", ":"))) if value else ""
    return ""


def _output(value: Any) -> str:
    if isinstance(value, dict):
        value = value.get("output", value.get("content"))
    if isinstance(value, list):
        value = _texts(value)
    return shorten(value, RESULT_CHARS) if isinstance(value, str) else ""


def _item(payload: dict[str, Any], at: str | None, offset: int) -> list[Part]:
    kind = payload.get("type")
    here = place(offset, 0)
    if kind == "message":
        text = _texts(payload.get("content")).strip()
        if not text:
            return []
        if payload.get("role") == "assistant":
            return [Message(here, Kind.TEXT, shorten(text, TEXT_CHARS), at=at)]
        if payload.get("role") == "user" and not text.startswith(_CONTEXT_OPENINGS):
            return [Echo(Message(here, Kind.PROMPT, shorten(text, TEXT_CHARS), at=at))]
        return []
    call_id = payload.get("call_id") if isinstance(payload.get("call_id"), str) else None
    if kind in ("function_call", "custom_tool_call") and isinstance(payload.get("name"), str):
        summary = call_summary(payload.get("arguments", payload.get("input")))
        return [Message(here, Kind.TOOL, summary, tool=payload["name"], call_id=call_id, at=at)]
    if kind == "local_shell_call":
        action = payload.get("action")
        summary = call_summary(action) if isinstance(action, dict) else ""
        return [Message(here, Kind.TOOL, summary, tool="shell", call_id=call_id, at=at)]
    if kind == "web_search_call":
        action = payload.get("action")
        summary = call_summary(action) if isinstance(action, dict) else ""
        return [Message(here, Kind.TOOL, summary, tool="web_search", call_id=call_id, at=at)]
    if kind in ("function_call_output", "custom_tool_call_output") and call_id:
        return [Attach(here, call_id, _output(payload.get("output")), False, at)]
    return []


def _event(payload: dict[str, Any], at: str | None, offset: int) -> list[Part]:
    kind = payload.get("type")
    here = place(offset, 0)
    if kind == "user_message" and isinstance(payload.get("message"), str) and payload["message"].strip():
        return [Message(here, Kind.PROMPT, shorten(payload["message"], TEXT_CHARS), at=at)]
    if kind == "context_compacted":
        return [Message(here, Kind.COMPACTION, "Context compacted", at=at)]
    if kind == "turn_aborted":
        reason = payload.get("reason")
        return [
            Message(here, Kind.TASK, "Turn interrupted" + (f" ({reason})" if isinstance(reason, str) else ""), at=at)
        ]
    if kind in ("error", "stream_error") and isinstance(payload.get("message"), str):
        return [Message(here, Kind.ERROR, one_line(payload["message"], RESULT_CHARS), at=at)]
    if kind == "task_complete" and isinstance(payload.get("error"), dict):
        detail = payload["error"].get("message")
        words = "Turn failed" + (f": {one_line(detail)}" if isinstance(detail, str) else "")
        return [Message(here, Kind.ERROR, words, at=at)]
    return []


def parts(record: Any, offset: int, *, sidechain: bool = False) -> list[Part]:
    """The parts one rollout record shows (`sidechain` is never asked: a sub-agent's thread has a rollout of
    its own)."""
    if not isinstance(record, dict) or not isinstance(record.get("payload"), dict):
        return []
    at = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
    if record.get("type") == "response_item":
        return _item(record["payload"], at, offset)
    if record.get("type") == "event_msg":
        return _event(record["payload"], at, offset)
    return []


def conversation_at(path: Path) -> Source:
    """The conversation of a rollout (compressed or not)."""
    return Source(path, CODEX.id, parts)


def _stored(conn: sqlite3.Connection | None, thread_id: str) -> Path | None:
    query = "SELECT path FROM codex_rollout WHERE thread_id = ? ORDER BY updated DESC"
    return stored_file(conn, lambda c: (path for (path,) in c.execute(query, (thread_id,))))


def _in_layout(thread_id: str) -> Path | None:
    home = paths.codex_home()
    for top in ("sessions", "archived_sessions"):
        found = sorted((home / top).rglob(f"rollout-*{thread_id}.jsonl")) or sorted(
            (home / top).rglob(f"rollout-*{thread_id}.jsonl.zst")
        )
        if found:
            return found[-1]
    return None


def find_conversation(thread_id: str, conn: sqlite3.Connection | None = None) -> Source | None:
    """The rollout a thread's conversation is read from, or None when this machine holds none (or `thread_id`
    is no id: a file pattern is built from it)."""
    path = found_file(thread_id, lambda found: _stored(conn, found), _in_layout)
    return conversation_at(path) if path is not None else None
