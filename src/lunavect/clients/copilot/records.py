"""What one line of a GitHub Copilot CLI events file says, as lunavect needs it: kinds, ids, times, tool names,
token counts and error kinds, never the text.

Observed with Copilot CLI 1.0.102 (tests/clients/NOTES.md), one JSON record a line, `{type, data, id, timestamp,
parentId}`, a sub-agent's records with a top-level `agentId` (its work is its session's, never a turn of the
session's own):
- `session.start` (`data.context.cwd`; the session's id is its folder's name) first; `session.resume` at each resume;
- `user.message` (`content`: the person's prompt), `assistant.message` (`content`, `toolRequests`, `model`) per
  model step, `assistant.turn_start` / `assistant.turn_end` around each step;
- `tool.execution_start` (`toolCallId`, `toolName`) and `tool.execution_complete` (`toolCallId`, `success`; a
  denied permission is `success: false` with `error.code: "denied"`);
- `abort` (`reason`: `user_initiated` for Esc, which also dismisses a waiting dialog);
- `session.error` (`errorType`: `rate_limit`, `authentication`, `authorization`, `policy`, `quota`,
  `context_limit`, `query`; `statusCode` when an HTTP answer failed; a `message` naming what could not be
  reached when no answer came): the turn failed, after the client's own retries;
- `session.compaction_complete` at a compaction's end (no hook says it);
- `session.usage_record` (`usage`: `model`, `inputTokens` with its cached parts, `outputTokens`,
  `cacheReadTokens`, `cacheWriteTokens`, `maxPromptTokens`) per model request, a sub-agent's too;
- `subagent.started` (its `agentId`); hook runs (`hook.start`, with their input), the model's own messages
  (`model.*`, `system.message`) and many more, which say nothing lunavect needs.

The prompt's text is read for one thing only, here, and dropped: the first line of a session's first prompt, its
title when its workspace.yaml names none.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from lunavect.conversation.message import title_line
from lunavect.core import bounded_json
from lunavect.core.bounds import count, http_status
from lunavect.core.ids import is_session_id
from lunavect.core.times import epoch
from lunavect.core.tokens import Tokens

_ID_CHARS = 200
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.:/-]{0,63}$")
# The record types read; every other line is passed over before it is decoded (a `model.messages_snapshot` holds
# the whole conversation). Copilot CLI writes `type` first: a line that does not begin so is decoded whole.
WANTED = frozenset(
    {
        "session.start",
        "session.resume",
        "user.message",
        "assistant.message",
        "tool.execution_start",
        "tool.execution_complete",
        "abort",
        "session.error",
        "session.compaction_complete",
        "session.usage_record",
        "subagent.started",
    }
)
_TYPE_PREFIX = re.compile(rb'^\{"type":"([a-z_.]{1,64})"')
# `errorType` values, as the rules name the reasons (core.rules.facts.ERROR_REASONS).
ERROR_TYPES = {
    "rate_limit": "rate_limit",
    "quota": "rate_limit",
    "authentication": "authentication_failed",
    "authorization": "authentication_failed",
    "policy": "billing_error",
}
# What a turn that reached no model says (the client's own words for a local provider, Node's error codes).
_UNREACHABLE = ("Could not connect", "ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "fetch failed")


def _short(value: object, limit: int = _ID_CHARS) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= limit and "\n" not in value else None


def _name(value: object) -> str | None:
    return value if isinstance(value, str) and _NAME.match(value) else None


class _Record(msgspec.Struct):
    type: object = None
    data: msgspec.Raw = msgspec.Raw()
    id: object = None
    timestamp: object = None
    agentId: object = None


class _Context(msgspec.Struct):
    cwd: object = None


class _Usage(msgspec.Struct):
    model: object = None
    inputTokens: object = None
    outputTokens: object = None
    cacheReadTokens: object = None
    cacheWriteTokens: object = None
    maxPromptTokens: object = None


class _Data(msgspec.Struct):
    context: _Context | None = None
    content: object = None
    toolRequests: list[object] | None = None
    toolCallId: object = None
    toolName: object = None
    success: object = None
    reason: object = None
    errorType: object = None
    statusCode: object = None
    message: object = None
    usage: _Usage | None = None


_record = msgspec.json.Decoder(_Record)
_data = msgspec.json.Decoder(_Data)


@dataclass
class Line:
    """What one line says. `kind`: meta, prompt, reply, tools, tool_use, tool_result, interrupt, api_error,
    compacted, usage, subagent, other."""

    kind: str
    at: float | None = None
    # The record's own id, unique in its file.
    record_id: str | None = None
    cwd: str | None = None
    title: str | None = None
    tool: str | None = None
    call_id: str | None = None
    error: str | None = None
    error_detail: str | None = None
    http_status: int | None = None
    tokens: Tokens | None = None
    context: int | None = None
    window: int | None = None
    model: str | None = None
    # The line is a sub-agent's (its id): counted for usage, never a turn of the session's own.
    agent: str | None = None


def record_type(data: bytes) -> str | None:
    """The record's type as its line begins, or None when the line does not begin with it."""
    match = _TYPE_PREFIX.match(data)
    return match.group(1).decode() if match else None


def read_line(data: bytes) -> Line | None:
    """What one line says, or None for a line that is not a record (not JSON, another shape, nested too deep)."""
    kind = record_type(data)
    if kind is not None and kind not in WANTED:
        return Line("other")
    try:
        record = bounded_json.decode(_record, data)
    except msgspec.DecodeError:
        return None
    if not isinstance(record.type, str) or record.type not in WANTED:
        return Line("other", at=epoch(record.timestamp))
    try:
        fields = bounded_json.decode(_data, bytes(record.data)) if len(record.data) else _Data()
    except msgspec.DecodeError:
        return Line("other", at=epoch(record.timestamp))
    line = Line("other", at=epoch(record.timestamp), record_id=_short(record.id), agent=_short(record.agentId))
    return _READERS[record.type](fields, line)


def _meta(data: _Data, line: Line) -> Line:
    line.kind = "meta"
    cwd = data.context.cwd if data.context is not None else None
    line.cwd = cwd if isinstance(cwd, str) and cwd.startswith("/") and len(cwd) <= 4096 else None
    return line


def _prompt(data: _Data, line: Line) -> Line:
    if isinstance(data.content, str) and data.content.strip() and line.agent is None:
        line.kind = "prompt"
        line.title = title_line(data.content)
    return line


def _reply(data: _Data, line: Line) -> Line:
    if data.toolRequests:
        line.kind = "tools"
    elif isinstance(data.content, str) and data.content.strip():
        line.kind = "reply"
    return line


def _tool(data: _Data, line: Line, kind: str) -> Line:
    line.call_id = _short(data.toolCallId)
    line.tool = _name(data.toolName)
    if line.call_id is not None:
        line.kind = kind
    return line


def _error(data: _Data, line: Line) -> Line:
    line.kind = "api_error"
    line.error = ERROR_TYPES.get(data.errorType) if isinstance(data.errorType, str) else None
    line.http_status = http_status(data.statusCode)
    message = data.message[:2000] if isinstance(data.message, str) else ""
    if line.http_status is None and any(word in message for word in _UNREACHABLE):
        line.error_detail = "ECONNREFUSED"  # the rules' one word for "could not reach the service"
    return line


def _says(kind: str) -> Callable[[_Data, Line], Line]:
    """The reader of a record whose kind is all it says (an Esc's `abort`, a compaction's end)."""

    def read(data: _Data, line: Line) -> Line:
        line.kind = kind
        return line

    return read


def _usage(data: _Data, line: Line) -> Line:
    usage = data.usage
    if usage is None:
        return line
    prompt, output = count(usage.inputTokens), count(usage.outputTokens)
    cache_read, cache_write = count(usage.cacheReadTokens), count(usage.cacheWriteTokens)
    if not (prompt or output):
        return line
    line.kind = "usage"
    # The prompt's count holds its cached parts: the four are made disjoint, as Claude's are.
    line.tokens = Tokens(max(0, prompt - cache_read - cache_write), output, cache_read, cache_write)
    line.context = max(prompt, cache_read + cache_write) + output
    line.window = count(usage.maxPromptTokens) or None
    line.model = _short(usage.model, 100)
    return line


def _subagent(data: _Data, line: Line) -> Line:
    if line.agent is not None and is_session_id(line.agent):
        line.kind = "subagent"
    return line


_READERS = {
    "session.start": _meta,
    "session.resume": _meta,
    "user.message": _prompt,
    "assistant.message": _reply,
    "tool.execution_start": lambda data, line: _tool(data, line, "tool_use"),
    "tool.execution_complete": lambda data, line: _tool(data, line, "tool_result"),
    "abort": _says("interrupt"),
    "session.error": _error,
    "session.compaction_complete": _says("compacted"),
    "session.usage_record": _usage,
    "subagent.started": _subagent,
}
