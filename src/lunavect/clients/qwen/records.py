"""What one line of a Qwen Code chat file says, as lunavect needs it: kinds, ids, times, tool names and token
counts, never the text.

Observed with Qwen Code 0.24.4 (tests/clients/NOTES.md), one JSON object per line, appended (never written
again): `{uuid, parentUuid, sessionId, timestamp, type, subtype?, provenance, cwd, version, message?, model?,
usageMetadata?, toolCallResult?, systemPayload?}`, `type` one of `user`, `assistant`, `tool_result`, `system`.
- `user` with `provenance: "real_user"` is the person's prompt (`message.parts[].text`, Gemini's shape);
- `assistant` is the model's reply: its text and `functionCall` parts, its `model` and `usageMetadata`
  (`promptTokenCount` with its `cachedContentTokenCount`, `candidatesTokenCount`, `thoughtsTokenCount`);
- `tool_result` is a call's end: `toolCallResult{callId, status}`, `status` being `success`, `error` or
  `cancelled` (an approval refused or dismissed with Esc: the turn ends there);
- `system` records are the client's bookkeeping; only `ui_telemetry` whose `uiEvent` is `qwen-code.api_error`
  says something: the turn failed, with the API's status at the head of its `error_message`.

The prompt's text is read for one thing only, here, and dropped: the first line of a session's first prompt,
its title (no generated title was seen).
"""

from __future__ import annotations

import re

import msgspec

from lunavect.chats.lines import Call, Line, decode_raw, short, tool_name
from lunavect.conversation.message import title_line
from lunavect.core import bounded_json
from lunavect.core.bounds import count
from lunavect.core.ids import is_session_id
from lunavect.core.times import epoch
from lunavect.core.tokens import Tokens

PERSON = "real_user"
API_ERROR_EVENT = "qwen-code.api_error"
_STATUS = re.compile(r"^\s*(\d{3})\b")
_UNREACHABLE = ("ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNRESET", "fetch failed", "Connection error")
_FINISHED = frozenset({"success", "error", "cancelled"})

ABSENT = msgspec.Raw()


class _Call(msgspec.Struct):
    id: object = None
    name: object = None


class _Part(msgspec.Struct):
    text: object = None
    functionCall: _Call | None = None
    thought: object = None


class _Message(msgspec.Struct):
    parts: list[_Part] = []


class _Usage(msgspec.Struct):
    promptTokenCount: object = None
    candidatesTokenCount: object = None
    thoughtsTokenCount: object = None
    cachedContentTokenCount: object = None


class _Result(msgspec.Struct):
    callId: object = None
    status: object = None


class _UiEvent(msgspec.Struct):
    name: object = msgspec.field(name="event.name", default=None)
    status_code: object = None
    error_message: object = None


class _Payload(msgspec.Struct):
    uiEvent: _UiEvent | None = None


class _Record(msgspec.Struct):
    uuid: object = None
    sessionId: object = None
    timestamp: object = None
    type: object = None
    subtype: object = None
    provenance: object = None
    model: object = None
    message: msgspec.Raw = ABSENT
    usageMetadata: msgspec.Raw = ABSENT
    toolCallResult: msgspec.Raw = ABSENT
    systemPayload: msgspec.Raw = ABSENT


_record = msgspec.json.Decoder(_Record)
_message = msgspec.json.Decoder(_Message)
_usage = msgspec.json.Decoder(_Usage)
_result = msgspec.json.Decoder(_Result)
_payload = msgspec.json.Decoder(_Payload | str)


def _tokens(raw: msgspec.Raw) -> tuple[Tokens | None, int | None]:
    usage = decode_raw(_usage, raw)
    if not isinstance(usage, _Usage):
        return None, None
    prompt, cached = count(usage.promptTokenCount), count(usage.cachedContentTokenCount)
    output = count(usage.candidatesTokenCount) + count(usage.thoughtsTokenCount)
    if not (prompt or output):
        return None, None
    # The prompt's count includes its cached part: the two are made disjoint, as Claude's are.
    return Tokens(input=max(0, prompt - cached), output=output, cache_read=cached), prompt + output


def _assistant(record: _Record, line: Line) -> Line:
    message = decode_raw(_message, record.message)
    parts = message.parts[:256] if isinstance(message, _Message) else []
    for part in parts:
        call = part.functionCall
        call_id, name = (short(call.id), tool_name(call.name)) if call is not None else (None, None)
        if call_id and name:
            line.calls.append(Call(call_id, name, None, line.at))
    line.tokens, line.context = _tokens(record.usageMetadata)
    line.model = short(record.model, 100)
    has_text = any(isinstance(p.text, str) and p.text.strip() and p.thought is not True for p in parts)
    line.kind = "tools" if line.calls else "reply" if has_text else "pending"
    return line


def _tool_result(record: _Record, line: Line) -> Line:
    result = decode_raw(_result, record.toolCallResult)
    if not isinstance(result, _Result):
        return line
    call_id = short(result.callId)
    status = result.status if isinstance(result.status, str) and result.status in _FINISHED else None
    if status == "cancelled":
        line.kind = "cancelled"  # an approval refused or dismissed: the turn ends here, with no reply
    elif call_id and status:
        # The call's name is its `assistant` record's: the result alone says only which call ended, and how.
        line.kind = "results"
        line.calls.append(Call(call_id, "", status, line.at))
    return line


def _system(record: _Record, line: Line) -> Line:
    if record.subtype != "ui_telemetry":
        return line
    payload = decode_raw(_payload, record.systemPayload)
    if isinstance(payload, str):  # written as a JSON string of the object
        try:
            payload = bounded_json.decode(_payload, payload.encode())
        except msgspec.DecodeError:
            return line
    event = payload.uiEvent if isinstance(payload, _Payload) else None
    if event is None or event.name != API_ERROR_EVENT:
        return line
    line.kind = "api_error"
    message = event.error_message if isinstance(event.error_message, str) else ""
    match = _STATUS.match(message[:200])
    code = event.status_code if isinstance(event.status_code, int) else int(match.group(1)) if match else None
    line.http_status = code if code is not None and 100 <= code <= 599 else None
    if any(word in message[:2000] for word in _UNREACHABLE):
        line.error_detail = "ECONNREFUSED"  # the rules' one word for "could not reach the service"
    return line


def read_line(data: bytes) -> Line | None:
    """What one line says, or None for a line that is not a record (not JSON, another shape, nested too deep).
    Every record names its session: the first one read starts it."""
    try:
        record = bounded_json.decode(_record, data)
    except msgspec.DecodeError:
        return None
    line = Line("other", message_id=short(record.uuid), at=epoch(record.timestamp))
    line.session_id = (
        record.sessionId if isinstance(record.sessionId, str) and is_session_id(record.sessionId) else None
    )
    if line.message_id is None:
        return line
    if record.type == "user" and record.provenance == PERSON:
        message = decode_raw(_message, record.message)
        texts = [p.text for p in message.parts if isinstance(p.text, str)] if isinstance(message, _Message) else []
        if any(t.strip() for t in texts):
            line.kind = "prompt"
            line.title = title_line("\n".join(texts))
        return line
    if record.type == "assistant":
        return _assistant(record, line)
    if record.type == "tool_result":
        return _tool_result(record, line)
    if record.type == "system":
        return _system(record, line)
    return line
