"""What one line of a Gemini CLI chat file says, as lunavect needs it: kinds, ids, times, tool names and
token counts, never the text.

Observed with Gemini CLI 0.61.0 (tests/clients/NOTES.md), one JSON object per line:
- the session's metadata, first (and again after each resume): `{sessionId, projectHash, startTime, kind}`,
  `kind` being `main` or `subagent`;
- a message: `{id, timestamp, type, content, …}`, `type` one of `user`, `gemini`, `info`, `error`, `warning`. The
  same `id` is written again each time the message changes (its tokens, its finished tool calls): the last line
  of an id wins. A `user` message is the person's prompt, the client's own `<session_context>`, or the tools'
  results sent back (`functionResponse` parts). A `gemini` message carries `toolCalls` (each `{id, name, status,
  timestamp, …}`, written only once the call finished), `tokens` and `model`;
- `{"$set": {…}}` updates the metadata (`summary`: the client's own title of the session, written at the next
  start; `messages`: a rebuild); `{"$rewindTo": <id>}` cuts the history.
- An API error is `{"type": "error", "content": "[API Error: <the API's JSON>]"}` (no hook says it), a cancel
  (Esc, a denied permission) `{"type": "info", "content": "Request cancelled."}`, a finished compression an
  `info` with empty content.

The prompt's text is read for two things only, here, and dropped: whether it is the client's own context, and
the first line of a session's first prompt, its title (as the client's session list shows it).
"""

from __future__ import annotations

import re

import msgspec

from lunavect.chats.lines import Call, Line, decode_raw, present, short, tool_name
from lunavect.conversation.message import title_line
from lunavect.core import bounded_json
from lunavect.core.bounds import count
from lunavect.core.ids import is_session_id
from lunavect.core.times import epoch
from lunavect.core.tokens import Tokens

CONTEXT_OPENING = "<session_context>"
CANCELLED = "Request cancelled."
API_ERROR_OPENING = "[API Error"
_STATUS_CODE = re.compile(r'"code"\s*:\s*(\d{3})\b')
# What a connection the client could not make says (Node's fetch and its error codes).
_UNREACHABLE = ("ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNRESET", "fetch failed")
_FINISHED = frozenset({"success", "error", "cancelled"})


# A field the line does not hold (or holds as null): raw fields stay unchecked until a reader needs them.
ABSENT = msgspec.Raw()


class _Call(msgspec.Struct):
    id: object = None
    name: object = None
    status: object = None
    timestamp: object = None


class _Tokens(msgspec.Struct):
    input: object = None
    output: object = None
    cached: object = None
    thoughts: object = None
    tool: object = None
    total: object = None


class _Part(msgspec.Struct):
    text: object = None
    functionResponse: object = None


class _Set(msgspec.Struct):
    summary: object = None
    sessionId: object = None
    messages: msgspec.Raw = ABSENT


class _Record(msgspec.Struct):
    id: object = None
    timestamp: object = None
    type: object = None
    content: msgspec.Raw = ABSENT
    toolCalls: msgspec.Raw = ABSENT
    tokens: msgspec.Raw = ABSENT
    model: object = None
    sessionId: object = None
    projectHash: object = None
    startTime: object = None
    kind: object = None
    set: msgspec.Raw = msgspec.field(name="$set", default=ABSENT)
    rewind: object = msgspec.field(name="$rewindTo", default=None)


_record = msgspec.json.Decoder(_Record)
_calls = msgspec.json.Decoder(list[_Call])
_tokens = msgspec.json.Decoder(_Tokens)
_set = msgspec.json.Decoder(_Set)
_content = msgspec.json.Decoder(str | list[_Part])
_messages = msgspec.json.Decoder(list[_Record])


def _texts(content: object) -> tuple[list[str], bool]:
    """The text parts of a message's content, and whether it holds a tool's result sent back."""
    if isinstance(content, str):
        return [content], False
    if not isinstance(content, list):
        return [], False
    texts = [p.text for p in content if isinstance(p.text, str)]
    return texts, any(p.functionResponse is not None for p in content)


def _tokens_of(raw: msgspec.Raw) -> tuple[Tokens | None, int | None]:
    counts = decode_raw(_tokens, raw)
    if not isinstance(counts, _Tokens):
        return None, None
    prompt, cached = count(counts.input), count(counts.cached)
    output = count(counts.output) + count(counts.thoughts)
    if not (prompt or output):
        return None, None
    # The prompt's count includes its cached part: the two are made disjoint, as Claude's are.
    return Tokens(input=max(0, prompt - cached), output=output, cache_read=cached), prompt + count(counts.output)


def _calls_of(raw: msgspec.Raw) -> list[Call]:
    found = decode_raw(_calls, raw)
    calls: list[Call] = []
    for call in (found or [])[:256]:
        call_id, name = short(call.id), tool_name(call.name)
        if call_id and name:
            status = call.status if isinstance(call.status, str) and call.status in _FINISHED else None
            calls.append(Call(call_id, name, status, epoch(call.timestamp)))
    return calls


def _error(text: str, line: Line) -> Line:
    line.kind = "api_error"
    match = _STATUS_CODE.search(text[:2000])
    line.http_status = int(match.group(1)) if match else None
    if any(word in text[:2000] for word in _UNREACHABLE):
        line.error_detail = "ECONNREFUSED"  # the rules' one word for "could not reach the service"
    return line


def _message(record: _Record, line: Line) -> Line:
    kind = record.type
    content = decode_raw(_content, record.content)
    texts, results = _texts(content)
    if kind == "user":
        if results:
            line.kind = "results"
        elif texts and texts[0].lstrip().startswith(CONTEXT_OPENING):
            line.kind = "context"
        elif any(t.strip() for t in texts):
            line.kind = "prompt"
            line.title = title_line("\n".join(texts))
        return line
    if kind == "gemini":
        line.calls = _calls_of(record.toolCalls)
        line.tokens, line.context = _tokens_of(record.tokens)
        line.model = short(record.model, 100)
        has_text = any(t.strip() for t in texts)
        line.kind = "tools" if line.calls else "reply" if has_text else "pending"
        return line
    text = texts[0] if texts else ""
    if kind == "error" and (text.startswith(API_ERROR_OPENING) or any(w in text[:2000] for w in _UNREACHABLE)):
        return _error(text, line)
    if kind == "info" and text.strip() == CANCELLED:
        line.kind = "cancelled"
    elif kind == "info" and content == "":
        line.kind = "compacted"  # the compression's own history item, which has no text
    return line


def read_line(data: bytes) -> Line | None:
    """What one line says, or None for a line that is not a record (not JSON, another shape, nested too deep)."""
    try:
        record = bounded_json.decode(_record, data)
    except msgspec.DecodeError:
        return None
    line = Line("other", at=epoch(record.timestamp))
    if present(record.set):
        updates = decode_raw(_set, record.set)
        line.kind = "summary"
        if isinstance(updates, _Set):
            line.summary = title_line(updates.summary) if isinstance(updates.summary, str) else None
            line.session_id = record_id(updates.sessionId)
            if present(updates.messages) and line.summary is None:
                line.title = rebuilt_title(updates.messages)
        return line
    if record.sessionId is not None and record.id is None:
        line.kind = "meta"
        line.session_id = record_id(record.sessionId)
        line.at = epoch(record.startTime)
        line.subagent = record.kind == "subagent"
        return line
    line.message_id = short(record.id)
    if line.message_id is None or not isinstance(record.type, str):
        return line
    return _message(record, line)


def record_id(value: object) -> str | None:
    return value if isinstance(value, str) and is_session_id(value) else None


def rebuilt_title(raw: msgspec.Raw) -> str | None:
    """The first prompt's title among a rebuild's messages (`$set.messages`), read when no title is known."""
    messages = decode_raw(_messages, raw)
    for record in (messages or [])[:10_000]:
        if record.type == "user":
            line = _message(record, Line("other"))
            if line.kind == "prompt":
                return line.title
    return None
