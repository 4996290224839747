"""The token counts of one Claude Code API message, from its `message.usage` object only.

The transcript writes one record per content block of a reply, each with the message's id and a copy of
`usage` as it stood when that block was written: the last record of an id carries the final counts (earlier
ones show the output still streaming). Records of one message are written one after another, so the
summary keeps the last id and what it already counted for it, and a later record of the same id replaces
that contribution instead of adding to it (summary.py). Only the usage object is decoded here, never the
message's content.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from lunavect.core.bounds import MAX_COUNT
from lunavect.core.bounds import count as _count
from lunavect.core.tokens import Tokens


class CacheCreation(msgspec.Struct):
    ephemeral_1h_input_tokens: object = None


class Usage(msgspec.Struct):
    input_tokens: object = None
    output_tokens: object = None
    cache_read_input_tokens: object = None
    cache_creation_input_tokens: object = None
    # The cache writes by how long they are kept: the one-hour part is priced apart.
    cache_creation: CacheCreation | None = None


_usage_decoder = msgspec.json.Decoder(Usage)
# A count as `bounds.count` takes one (a whole number from 0 below MAX_COUNT), or null.
_Count = Annotated[int, msgspec.Meta(ge=0, lt=MAX_COUNT)] | None


class TypedCacheCreation(msgspec.Struct):
    ephemeral_1h_input_tokens: _Count = None


class TypedUsage(msgspec.Struct):
    """`Usage` decoded with its record (record_shapes.TypedMessage): a count of another kind fails that decode,
    and the record is read field by field, where `bounds.count` makes it 0. So these need no check here."""

    input_tokens: _Count = None
    output_tokens: _Count = None
    cache_read_input_tokens: _Count = None
    cache_creation_input_tokens: _Count = None
    cache_creation: TypedCacheCreation | None = None


class MessageUsage(msgspec.Struct, frozen=True):
    """One record's view of an API message's usage: which message, which model, its counts, and whether a
    sub-agent (a sidechain record, or a sub-agent's own transcript) sent it."""

    message_id: str | None
    model: str | None
    tokens: Tokens
    subagent: bool = False


def message_usage(
    message_id: object, model: object, usage: msgspec.Raw | Usage | TypedUsage | None, subagent: bool
) -> MessageUsage | None:
    """The usage an assistant record carries, raw or already decoded with its record, or None when it carries
    none (an API error, an old client)."""
    if usage is None:
        return None
    if isinstance(usage, TypedUsage):
        tokens = typed_tokens(usage)
        name = model if type(model) is str and 0 < len(model) <= 200 and model != "<synthetic>" else None
        ident = message_id if type(message_id) is str and 0 < len(message_id) <= 200 else None
        return MessageUsage(ident, name, tokens, subagent)
    if isinstance(usage, Usage):
        decoded = usage
    elif len(usage) == 0 or bytes(usage) == b"null":
        return None
    else:
        try:
            decoded = _usage_decoder.decode(usage)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
    written = _count(decoded.cache_creation_input_tokens)
    hour = _count(decoded.cache_creation.ephemeral_1h_input_tokens) if decoded.cache_creation is not None else 0
    tokens = Tokens(
        _count(decoded.input_tokens),
        _count(decoded.output_tokens),
        _count(decoded.cache_read_input_tokens),
        written,
        min(hour, written),
    )
    name = model if isinstance(model, str) and 0 < len(model) <= 200 and model != "<synthetic>" else None
    ident = message_id if isinstance(message_id, str) and 0 < len(message_id) <= 200 else None
    return MessageUsage(ident, name, tokens, subagent)


def typed_tokens(usage: TypedUsage) -> Tokens:
    """The counts of a usage decoded with its record; the one-hour writes are a part of all writes, never more."""
    written = usage.cache_creation_input_tokens or 0
    hour = (usage.cache_creation.ephemeral_1h_input_tokens or 0) if usage.cache_creation is not None else 0
    return Tokens(
        usage.input_tokens or 0,
        usage.output_tokens or 0,
        usage.cache_read_input_tokens or 0,
        written,
        min(hour, written),
    )
