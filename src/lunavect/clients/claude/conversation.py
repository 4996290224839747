"""Claude Code's conversation as it shows it: which transcript holds a session's, and its records as displayed
messages (read on demand by `lunavect show` and the peeks, through the face; nothing of it is kept).

The transcript is found from what the collector stored (the path its reader keeps a cursor for), else from
Claude Code's layout by the session id: `projects/<folder>/<id>.jsonl`. The session's own messages only:
records of a sub-agent (`isSidechain`) are that agent's and are read from its own transcript
(`<id>/subagents/agent-<agent id>.jsonl`) when asked. Records of unknown types, thinking blocks, the client's
bookkeeping (progress, snapshots, queue operations) and its injected meta messages show nothing.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

from lunavect import paths
from lunavect.conversation.message import RESULT_CHARS, TEXT_CHARS, Kind, Message, one_line, shorten
from lunavect.conversation.parts import Attach, Part, place
from lunavect.conversation.source import Source, found_file, stored_file
from lunavect.core.clients import CLAUDE

# The tool input fields that say what a call does, by tool (first present wins), then generic ones.
_SUMMARY_FIELDS: dict[str, tuple[str, ...]] = {
    "Bash": ("command",),
    "Read": ("file_path",),
    "Write": ("file_path",),
    "Edit": ("file_path",),
    "MultiEdit": ("file_path",),
    "NotebookEdit": ("notebook_path",),
    "Glob": ("pattern",),
    "Grep": ("pattern",),
    "WebFetch": ("url",),
    "WebSearch": ("query",),
    "Agent": ("description", "prompt"),
    "Task": ("description", "prompt"),
    "Skill": ("skill", "command"),
}
_GENERIC_FIELDS = ("description", "command", "file_path", "path", "pattern", "url", "query", "prompt", "name")
_TAG = re.compile(r"<(task-id|status|summary|tool-use-id)>([\s\S]*?)</\1>")
_NOTIFICATION = re.compile(r"<task-notification>([\s\S]*?)</task-notification>")
_COMMAND = re.compile(r"<command-name>([\s\S]*?)</command-name>[\s\S]*?(?:<command-args>([\s\S]*?)</command-args>)?")


def tool_summary(name: str, tool_input: Any) -> str:
    """One line saying what a call does: its command, file, pattern or description."""
    if not isinstance(tool_input, dict):
        return ""
    for key in _SUMMARY_FIELDS.get(name, ()) + _GENERIC_FIELDS:
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            line = one_line(value)
            if tool_input.get("run_in_background") is True:
                line += " (background)"
            return line
    if not tool_input:
        return ""
    return one_line(json.dumps(tool_input, ensure_ascii=False, separators=(",", ":")))


def result_text(content: Any) -> str:
    """A tool result's text (a string, or text blocks), shortened; images are named, not shown."""
    if isinstance(content, str):
        return shorten(content, RESULT_CHARS)
    if isinstance(content, list):
        pieces = []
        for block in content:
            if isinstance(block, dict):
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    pieces.append(block["text"])
                elif block.get("type") == "image":
                    pieces.append("[image]")
        return shorten("\n".join(pieces), RESULT_CHARS)
    return ""


def _notifications(text: str, at: str | None, offset: int, first: int) -> list[Part]:
    """A background task's end, as the runtime reports it to the session (one message per notification)."""
    found: list[Part] = []
    for index, block in enumerate(_NOTIFICATION.findall(text)):
        tags = {name: value.strip() for name, value in _TAG.findall(block)}
        status = tags.get("status") or "ended"
        summary = one_line(tags.get("summary", ""))
        words = f"Background task {status}" + (f": {summary}" if summary else "")
        found.append(Message(place(offset, first + index), Kind.TASK, words, call_id=tags.get("tool-use-id"), at=at))
    return found


def _prompt(text: str, at: str | None, offset: int, index: int) -> list[Part]:
    stripped = text.strip()
    if not stripped:
        return []
    if stripped.startswith("<task-notification>"):
        return _notifications(stripped, at, offset, index)
    if stripped.startswith("[Request interrupted by user"):
        return [Message(place(offset, index), Kind.TASK, "Interrupted by the person", at=at)]
    if stripped.startswith("<local-command-stdout>") or stripped.startswith("<local-command-caveat>"):
        return []
    command = _COMMAND.match(stripped)
    if command:
        words = command.group(1).strip() + (" " + command.group(2).strip() if command.group(2) else "")
        return [Message(place(offset, index), Kind.PROMPT, words.strip(), at=at)]
    return [Message(place(offset, index), Kind.PROMPT, shorten(stripped, TEXT_CHARS), at=at)]


def _assistant(record: dict[str, Any], at: str | None, offset: int) -> list[Part]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return []
    failed = record.get("isApiErrorMessage") is True
    found: list[Part] = []
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            shown = Kind.ERROR if failed else Kind.TEXT
            found.append(Message(place(offset, index), shown, shorten(block["text"], TEXT_CHARS), at=at))
        elif kind == "tool_use" and isinstance(block.get("name"), str):
            name = block["name"]
            call = block.get("id") if isinstance(block.get("id"), str) else None
            summary = tool_summary(name, block.get("input"))
            found.append(Message(place(offset, index), Kind.TOOL, summary, tool=name, call_id=call, at=at))
    return found


def _user(record: dict[str, Any], at: str | None, offset: int) -> list[Part]:
    if record.get("isMeta") is True or record.get("isCompactSummary") is True:
        return []
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return _prompt(content, at, offset, 0)
    if not isinstance(content, list):
        return []
    found: list[Part] = []
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            found.extend(_prompt(block["text"], at, offset, index))
        elif block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
            failed = block.get("is_error") is True
            text = result_text(block.get("content"))
            found.append(Attach(place(offset, index), block["tool_use_id"], text, failed, at))
    return found


def _system(record: dict[str, Any], at: str | None, offset: int) -> list[Part]:
    subtype = record.get("subtype")
    if subtype == "compact_boundary":
        meta = record.get("compactMetadata")
        trigger = meta.get("trigger") if isinstance(meta, dict) else None
        words = "Context compacted" + (f" ({trigger})" if isinstance(trigger, str) else "")
        return [Message(place(offset, 0), Kind.COMPACTION, words, at=at)]
    if subtype == "api_error":
        error = record.get("error")
        detail = error.get("formatted") if isinstance(error, dict) else None
        words = "API error" + (f": {one_line(detail)}" if isinstance(detail, str) and detail else "")
        attempt, most = record.get("retryAttempt"), record.get("maxRetries")
        if isinstance(attempt, int) and isinstance(most, int):
            words += f" (retry {attempt} of {most})"
        return [Message(place(offset, 0), Kind.ERROR, words, at=at)]
    return []


def parts(record: Any, offset: int, *, sidechain: bool = False) -> list[Part]:
    """The parts one record shows. `sidechain` reads a sub-agent's own transcript, whose records all are."""
    if not isinstance(record, dict) or (record.get("isSidechain") is True) != sidechain:
        return []
    at = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
    kind = record.get("type")
    if kind == "assistant":
        return _assistant(record, at, offset)
    if kind == "user":
        return _user(record, at, offset)
    if kind == "system":
        return _system(record, at, offset)
    return []


def conversation_at(path: Path) -> Source:
    """The conversation of a transcript; its sub-agents' transcripts are kept in a folder beside it."""
    return Source(path, CLAUDE.id, parts, agents_folder=path.with_suffix("") / "subagents")


def _stored(conn: sqlite3.Connection | None, session_id: str) -> Path | None:
    query = "SELECT path FROM claude_transcript WHERE session_id = ? ORDER BY updated DESC"
    return stored_file(conn, lambda c: (path for (path,) in c.execute(query, (session_id,))))


def _in_layout(session_id: str) -> Path | None:
    projects = paths.claude_config_dir() / "projects"
    try:
        folders = list(os.scandir(projects))
    except OSError:
        return None
    for folder in folders:
        candidate = Path(folder.path) / f"{session_id}.jsonl"
        if candidate.is_file():
            return candidate
    return None


def find_conversation(session_id: str, conn: sqlite3.Connection | None = None) -> Source | None:
    """The transcript a session's conversation is read from, or None when this machine holds none (or
    `session_id` is no id: a file name is built from it)."""
    path = found_file(session_id, lambda found: _stored(conn, found), _in_layout)
    return conversation_at(path) if path is not None else None
