"""What one line of a Pi session file says, as lunavect needs it: kinds, ids, times, tool names, token counts and
an error's HTTP status, never the text.

Observed with Pi 0.73.1 (tests/clients/NOTES.md; its docs/session-format.md), one JSON entry a line, each with an
8-hex `id` and a `parentId` (a tree: a person's `/tree` moves on another branch of the same file):
- `session` first (`id`: the session's, `cwd`, `timestamp`), no `id` of the tree's;
- `message` (`message.role`): `user` (`content`: the person's prompt), `assistant` (`content` blocks, `toolCall`
  ones among them; `stopReason` `stop`/`length`/`toolUse`/`error`/`aborted`; `errorMessage` `"<status>
  <words>"`; `usage` `input`, `output`, `cacheRead`, `cacheWrite`, disjoint; `model`), `toolResult`
  (`toolCallId`, `toolName`, `isError`), and others (`bashExecution`: a person's `!command`, `custom`);
- `session_info` (`name`: the name `/name` gave, its title where it has one), `compaction` (a compaction's end),
  `model_change`, `thinking_level_change`, `label`, `custom`, `branch_summary`, which say nothing more here.

The prompt's text is read for one thing only, here, and dropped: the first line of a session's first prompt, its
title when it has no name (as Pi's `/resume` list shows it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import msgspec

from lunavect.conversation.message import title_line
from lunavect.core import bounded_json
from lunavect.core.bounds import count
from lunavect.core.ids import is_session_id
from lunavect.core.times import epoch
from lunavect.core.tokens import Tokens

_ID_CHARS = 200
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.:/-]{0,63}$")
_STATUS = re.compile(r"^(\d{3})\b")
# What Pi's message says when no answer came (Node's error codes, the SDKs' own words).
_UNREACHABLE = ("ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "Connection error", "fetch failed")
MAX_NAME_CHARS = 1000
WANTED = frozenset({"session", "message", "session_info", "compaction"})
_TYPE_PREFIX = re.compile(rb'^\{"type":"([a-z_]{1,64})"')


def _short(value: object, limit: int = _ID_CHARS) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= limit and "\n" not in value else None


def _name(value: object) -> str | None:
    return value if isinstance(value, str) and _NAME.match(value) else None


class _Usage(msgspec.Struct):
    input: object = None
    output: object = None
    cacheRead: object = None
    cacheWrite: object = None


class _Message(msgspec.Struct):
    role: object = None
    content: object = None
    stopReason: object = None
    errorMessage: object = None
    usage: _Usage | None = None
    model: object = None
    toolCallId: object = None
    toolName: object = None
    isError: object = None


class _Entry(msgspec.Struct):
    type: object = None
    id: object = None
    timestamp: object = None
    cwd: object = None
    name: object = None
    message: _Message | None = None


_entry = msgspec.json.Decoder(_Entry)


@dataclass
class Call:
    tool: str | None
    call_id: str


@dataclass
class Line:
    """What one line says. `kind`: meta, name, prompt, reply, tools, tool_result, interrupt, api_error, compacted,
    other."""

    kind: str
    at: float | None = None
    # The entry's own id, unique in its file (the header's is the session's id).
    record_id: str | None = None
    session_id: str | None = None
    cwd: str | None = None
    title: str | None = None
    calls: list[Call] = field(default_factory=list)
    call_id: str | None = None
    error: str | None = None
    error_detail: str | None = None
    http_status: int | None = None
    tokens: Tokens | None = None
    context: int | None = None
    model: str | None = None


def read_line(data: bytes) -> Line | None:
    """What one line says, or None for a line that is not an entry (not JSON, another shape, nested too deep)."""
    match = _TYPE_PREFIX.match(data)
    if match is not None and match.group(1).decode() not in WANTED:
        return Line("other")
    try:
        entry = bounded_json.decode(_entry, data)
    except msgspec.DecodeError:
        return None
    line = Line("other", at=epoch(entry.timestamp), record_id=_short(entry.id))
    if entry.type == "session":
        line.kind = "meta"
        line.session_id = entry.id if is_session_id(entry.id) else None
        line.cwd = (
            entry.cwd if isinstance(entry.cwd, str) and entry.cwd.startswith("/") and len(entry.cwd) <= 4096 else None
        )
    elif entry.type == "session_info":
        line.kind = "name"
        name = entry.name if isinstance(entry.name, str) else None
        line.title = title_line(name) if name and len(name) <= MAX_NAME_CHARS else None
    elif entry.type == "compaction":
        line.kind = "compacted"
    elif entry.type == "message" and entry.message is not None:
        _message(entry.message, line)
    return line


def first_text(content: object) -> str | None:
    """A message's text: its string, or its first text block's."""
    if isinstance(content, str):
        return content
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            return block["text"]
    return None


def _message(message: _Message, line: Line) -> None:
    role = message.role
    if role == "user":
        text = first_text(message.content)
        if text and text.strip():
            line.kind = "prompt"
            line.title = title_line(text)
    elif role == "assistant":
        _assistant(message, line)
    elif role == "toolResult":
        line.call_id = _short(message.toolCallId)
        if line.call_id is not None:
            line.kind = "tool_result"


def _assistant(message: _Message, line: Line) -> None:
    reason = message.stopReason
    if reason == "toolUse":
        line.kind = "tools"
        for block in message.content if isinstance(message.content, list) else []:
            if isinstance(block, dict) and block.get("type") == "toolCall" and _short(block.get("id")):
                line.calls.append(Call(_name(block.get("name")), block["id"]))
    elif reason == "aborted":
        line.kind = "interrupt"
    elif reason == "error":
        line.kind = "api_error"
        words = message.errorMessage[:2000] if isinstance(message.errorMessage, str) else ""
        status = _STATUS.match(words)
        line.http_status = int(status.group(1)) if status and 100 <= int(status.group(1)) < 600 else None
        if line.http_status is None and any(word in words for word in _UNREACHABLE):
            line.error_detail = "ECONNREFUSED"  # the rules' one word for "could not reach the service"
    elif reason in ("stop", "length"):
        line.kind = "reply"
    usage = message.usage
    if usage is not None:
        prompt, output = count(usage.input), count(usage.output)
        cache_read, cache_write = count(usage.cacheRead), count(usage.cacheWrite)
        if prompt or output or cache_read or cache_write:
            line.tokens = Tokens(prompt, output, cache_read, cache_write)
            line.context = prompt + cache_read + cache_write + output
            line.model = _short(message.model, 100)
