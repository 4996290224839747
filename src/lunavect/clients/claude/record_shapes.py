"""The shapes a Claude Code transcript line is decoded into: only the fields lunavect uses, nothing it says.

Kept apart from what each record means (records.py) so the readers of each kind stay short. Fields of
varying shape stay raw (`msgspec.Raw`) until a reader needs them: an odd value in one field never loses the
record, and a field no reader asks for is never decoded.
"""

from __future__ import annotations

import msgspec

from lunavect.clients.claude.usage import TypedUsage
from lunavect.core import bounded_json

# An absent raw field; `null` in the line decodes to the raw bytes `null`.
ABSENT = msgspec.Raw()


class Block(msgspec.Struct):
    type: object = None
    id: object = None
    name: object = None
    input: msgspec.Raw = ABSENT
    tool_use_id: object = None
    is_error: object = None
    text: object = None


class Message(msgspec.Struct):
    content: str | list[Block] | None = None
    stop_reason: object = None
    id: object = None
    model: object = None
    usage: msgspec.Raw = ABSENT


class Origin(msgspec.Struct):
    kind: object = None


class Attachment(msgspec.Struct):
    type: object = None
    commandMode: object = None  # noqa: N815 - the client's field name
    prompt: object = None


class AgentInput(msgspec.Struct):
    subagent_type: object = None
    run_in_background: object = None


class BashInput(msgspec.Struct):
    command: object = None
    run_in_background: object = None


class ToolUseResult(msgspec.Struct):
    agentId: object = None  # noqa: N815
    resumedAgentId: object = None  # noqa: N815
    isAsync: object = None  # noqa: N815
    backgroundTaskId: object = None  # noqa: N815


class CompactMetadata(msgspec.Struct):
    trigger: object = None


class ApiError(msgspec.Struct):
    status: object = None
    connection: object = None


class Record(msgspec.Struct):
    """A transcript line's top level. Fields of varying shape stay raw until a record needs them, so an
    odd value in one field never loses the record."""

    type: object = None
    subtype: object = None
    uuid: object = None
    timestamp: object = None
    sessionId: object = None  # noqa: N815
    isSidechain: object = None  # noqa: N815
    isMeta: object = None  # noqa: N815
    isCompactSummary: object = None  # noqa: N815
    isApiErrorMessage: object = None  # noqa: N815
    apiErrorStatus: object = None  # noqa: N815
    error: msgspec.Raw = ABSENT
    message: msgspec.Raw = ABSENT
    toolUseResult: msgspec.Raw = ABSENT  # noqa: N815
    origin: msgspec.Raw = ABSENT
    promptSource: object = None  # noqa: N815
    turnOrigin: object = None  # noqa: N815
    attachment: msgspec.Raw = ABSENT
    operation: object = None
    content: msgspec.Raw = ABSENT
    customTitle: object = None  # noqa: N815
    aiTitle: object = None  # noqa: N815
    agentName: object = None  # noqa: N815
    summary: object = None
    lastPrompt: object = None  # noqa: N815
    cwd: object = None
    gitBranch: object = None  # noqa: N815
    version: object = None
    entrypoint: object = None
    sessionKind: object = None  # noqa: N815
    compactMetadata: msgspec.Raw = ABSENT  # noqa: N815


class TypedMessage(Message):
    usage: TypedUsage | None = None  # type: ignore[assignment]


class TypedRecord(Record):
    """The same top level with the message and the tool result decoded in the same pass: one scan of the
    line instead of three, which is what a whole read's throughput hangs on. A line whose message or tool
    result has another shape fails this decoder and is read as a `Record`, field by field."""

    message: TypedMessage | None = None  # type: ignore[assignment]
    toolUseResult: str | ToolUseResult | list[ToolUseResult | None] | None = None  # type: ignore[assignment]  # noqa: N815


def names_work(result: object) -> bool:
    """A typed tool result that names an agent or a background task (rare: those lines are read as a
    `Record`, by the one reader of results, which reads such a result only when its bytes name those keys)."""
    if isinstance(result, ToolUseResult):
        return not (
            result.agentId is None
            and result.resumedAgentId is None
            and result.isAsync is None
            and result.backgroundTaskId is None
        )
    return isinstance(result, list) and any(names_work(item) for item in result)


record_decoder = msgspec.json.Decoder(Record)
typed_record_decoder = msgspec.json.Decoder(TypedRecord)
message_decoder = msgspec.json.Decoder(Message)
origin_decoder = msgspec.json.Decoder(Origin)
attachment_decoder = msgspec.json.Decoder(Attachment)
agent_input_decoder = msgspec.json.Decoder(AgentInput)
bash_input_decoder = msgspec.json.Decoder(BashInput)
result_decoder = msgspec.json.Decoder(ToolUseResult | list[ToolUseResult | None] | None)
compact_decoder = msgspec.json.Decoder(CompactMetadata)
api_error_decoder = msgspec.json.Decoder(ApiError)
text_decoder = msgspec.json.Decoder(str | list[Block] | None)


def short_str(value: object, limit: int = 1000) -> str | None:
    return value if isinstance(value, str) and value and len(value) <= limit else None


def present(raw: msgspec.Raw) -> bool:
    return len(raw) > 0 and bytes(raw) != b"null"


def decode_raw(decoder: msgspec.json.Decoder, raw: msgspec.Raw):  # noqa: ANN202 - the decoder's type
    """A raw field decoded, or None when it is not the shape. A raw field is kept unchecked by the line's
    decode, so a stray invalid UTF-8 byte in it (a prompt, the title's source, cut mid-character) is replaced
    here, field by field, rather than costing the field."""
    if not present(raw):
        return None
    try:
        return bounded_json.decode(decoder, raw)
    except (msgspec.ValidationError, bounded_json.TooDeep):
        return None
    except msgspec.DecodeError:
        text = bytes(raw).decode("utf-8", "replace").encode("utf-8")
        if text == bytes(raw):
            return None  # valid UTF-8: not the encoding, the JSON is wrong
        try:
            return bounded_json.decode(decoder, text)
        except msgspec.DecodeError:
            return None


def message_of(record: Record) -> Message | None:
    """The record's message, decoded already (a `TypedRecord`) or now (a `Record`); None when absent or odd."""
    message = record.message
    if message is None or isinstance(message, Message):
        return message
    return decode_raw(message_decoder, message)


def block_text(content: object) -> str | None:
    """A message's text: its string, or its text blocks joined (images and tool results are not text)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.text for b in content if isinstance(b, Block) and b.type == "text" and isinstance(b.text, str))
    return None
