"""A chat file read incrementally as lines of one shape, for a client that writes one JSON record per line and each
message again whenever it changes (Gemini CLI and its fork Qwen Code): what was appended since the last read, as
evidence, the file's summary (session, title, folder) and the tokens it added.

Each client's package reads its own lines into a `Line` (kinds, ids, times, tool names, token counts, never the
text) and hands its reader to `read_chat`; the fold is the same for both. The cursor is the shared one of
`lunavect.files.tail` (the end of the last complete line, the file's identity and the digests of its first bytes
and of those before the offset), so a file rewritten or replaced is read again from its start, and its tokens
with it. Each record's evidence has an id made of the session, the message's own id and what it says, the same
however often the client writes the message again and however often it is read. A read hands over only the
activity from its last prompt on: what came before a newer prompt is superseded (the rules would ignore it), so
a long history costs a few rows.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

import msgspec

from lunavect.chats.file_read import KINDS, MAX_LINE_BYTES, SOURCE, FileRead, add_meta, fold
from lunavect.core.model import Evidence, session_key
from lunavect.core.tokens import Tokens
from lunavect.files.tail import Cursor, read_appended
from lunavect.usage import ledger

# How many message ids whose tokens were counted a summary remembers: the client writes a message again
# within its own turn, so the latest ones suffice to count each once.
COUNTED_IDS = 64
# The fields a line's reader checks: an id of bounded length on one line, a tool's name of a tool's shape.
ID_CHARS = 200
_TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]{0,63}$")


def present(raw: msgspec.Raw) -> bool:
    """A raw field the line holds (neither absent nor null)."""
    return len(raw) > 0 and bytes(raw) != b"null"


def decode_raw(decoder: msgspec.json.Decoder, raw: msgspec.Raw):  # noqa: ANN201 - the decoder's type
    """A raw field decoded, or None when it is absent, null or not of the decoder's shape."""
    if not present(raw):
        return None
    try:
        return decoder.decode(raw)
    except msgspec.DecodeError:
        return None


def short(value: object, limit: int = ID_CHARS) -> str | None:
    """`value` as an id: a string of one line and at most `limit` characters, else None."""
    return value if isinstance(value, str) and 0 < len(value) <= limit and "\n" not in value else None


def tool_name(value: object) -> str | None:
    """`value` as a tool's name, else None."""
    return value if isinstance(value, str) and _TOOL_NAME.match(value) else None


@dataclass(frozen=True)
class Call:
    """A finished tool call of a reply: its id, tool, how it ended and when."""

    id: str
    name: str
    status: str | None
    at: float | None


@dataclass
class Line:
    """What one line says. `kind`: meta, prompt, context, results, reply, pending, tools, api_error, cancelled,
    compacted, summary, other."""

    kind: str
    message_id: str | None = None
    at: float | None = None
    session_id: str | None = None
    subagent: bool = False
    title: str | None = None
    summary: str | None = None
    calls: list[Call] = field(default_factory=list)
    tokens: Tokens | None = None
    context: int | None = None
    model: str | None = None
    http_status: int | None = None
    error_detail: str | None = None


@dataclass(frozen=True)
class Reader:
    """A client's way of reading its chat files: the provider its evidence names, and its reader of one line (None
    for a line that is not a record)."""

    provider: str
    read_line: Callable[[bytes], Line | None]


class Summary(msgspec.Struct):
    """What is known of a chat file once read to its cursor (kept with it in the store)."""

    session_id: str | None = None
    subagent: bool = False
    started: float | None = None
    last_at: float | None = None
    title: str | None = None
    summary: str | None = None
    sent_meta: str | None = None
    counted: list[str] = []
    model: str | None = None
    context: int | None = None
    usage_at: float | None = None


@dataclass
class ChatRead(FileRead[Summary]):
    """The shared read (`file_read`), with the client's reader of its lines."""

    reader: Reader = field(kw_only=True)


def read_chat(
    path: str,
    stored: tuple[Cursor, Summary] | None,
    budget: int,
    cwd: str | None,
    now: float,
    reader: Reader,
) -> ChatRead:
    """Read what was appended to the file since `stored` (or all of it), at most about `budget` bytes."""
    cursor, summary = stored if stored is not None else (None, Summary())
    found = read_appended(path, cursor, budget, MAX_LINE_BYTES)
    read = ChatRead(
        path,
        found.cursor,
        Summary() if found.restarted else msgspec.structs.replace(summary, counted=list(summary.counted)),
        reader=reader,
        restarted=found.restarted,
        skipped=found.skipped,
        partial=found.partial,
    )
    fold_lines(read, found.lines, cwd, now)
    read.bytes_read = found.bytes_read
    return read


def fold_lines(read: ChatRead, lines: list[bytes], cwd: str | None, now: float) -> None:
    """Fold a file's lines into its read: the summary, the tokens, and the activity from its last prompt on."""
    fold(read, lines, read.reader.read_line, _take)
    add_meta(read.reader.provider, read, read.summary.summary or read.summary.title, cwd, now)


def _take(read: ChatRead, line: Line) -> list[tuple[str, Evidence]]:
    summary = read.summary
    _learn(summary, line)
    sid = summary.session_id
    if sid is None or line.at is None:
        return []
    _count(read, line)
    return evidence_of(read.reader.provider, sid, line)


def _learn(summary: Summary, line: Line) -> None:
    if line.kind == "meta":
        if summary.session_id is None and line.session_id is not None:
            summary.session_id = line.session_id
            summary.started = line.at
        summary.subagent = summary.subagent or line.subagent
        return
    if summary.session_id is None and line.session_id is not None and line.kind != "summary":
        # A client with no metadata record names the session on every record (Qwen Code): the first starts it.
        summary.session_id = line.session_id
        summary.started = line.at
    if line.at is not None:
        summary.last_at = max(line.at, summary.last_at or line.at)
    if line.kind == "summary":
        if line.summary:
            summary.summary = line.summary
        if line.title and summary.title is None:
            summary.title = line.title
    elif line.kind == "prompt" and summary.title is None:
        summary.title = line.title


def _count(read: ChatRead, line: Line) -> None:
    """A reply's tokens, once per message id however often the client writes it again."""
    summary = read.summary
    if line.tokens is None or line.message_id is None or line.message_id in summary.counted:
        return
    summary.counted = [*summary.counted, line.message_id][-COUNTED_IDS:]
    read.deltas.add(ledger.quarter_of(line.at, line.at or 0.0), line.model, False, line.tokens)
    if line.at is not None and (summary.usage_at is None or line.at >= summary.usage_at):
        summary.model = line.model or summary.model
        summary.context = line.context or summary.context
        summary.usage_at = line.at


def evidence_of(provider: str, session_id: str, line: Line) -> list[tuple[str, Evidence]]:
    """The evidence of one message, each with its stable id (the client's message id and what it says)."""
    assert line.at is not None
    base = f"{provider}-chat:{session_id}:{line.message_id}"
    if line.kind == "tools":
        found: list[tuple[str, Evidence]] = []
        for call in line.calls:
            found.append(
                (
                    f"{base}:use:{call.id}",
                    Evidence(
                        provider, session_id, "TranscriptToolUse", line.at, SOURCE, tool=call.name, tool_use_id=call.id
                    ),
                )
            )
            if call.status is not None:
                at = call.at if call.at is not None else line.at
                found.append(
                    (
                        f"{base}:result:{call.id}",
                        Evidence(provider, session_id, "TranscriptToolResult", at, SOURCE, tool_use_id=call.id),
                    )
                )
        return found
    if line.kind == "results":
        # Calls whose end is a record of its own (Qwen Code's `tool_result`); Gemini CLI's carry none.
        return [
            (
                f"{base}:result:{call.id}",
                Evidence(provider, session_id, "TranscriptToolResult", call.at or line.at, SOURCE, tool_use_id=call.id),
            )
            for call in line.calls
            if call.status is not None
        ]
    kind = KINDS.get(line.kind)
    if kind is None:
        return []
    evidence = Evidence(
        provider, session_id, kind, line.at, SOURCE, http_status=line.http_status, error_detail=line.error_detail
    )
    return [(f"{base}:{line.kind}", evidence)]


def save_usage(
    conn: sqlite3.Connection,
    path: str,
    read: ChatRead | None,
    window: Callable[[str | None], int | None],
    *,
    restarted: bool,
) -> None:
    """Record what a read added to the usage history (a file read again from its start, or gone, first takes
    back what it added); `window` is the context window of a model, as the client knows it."""
    if read is None or read.session_id is None:
        ledger.save_read(conn, path, None, ledger.Deltas(), None, restarted=restarted)
        return
    summary = read.summary
    latest = None
    if summary.usage_at is not None:
        latest = ledger.Latest(summary.model, summary.context, window(summary.model), summary.usage_at)
    key = session_key(read.reader.provider, read.session_id)
    ledger.save_read(conn, path, key, read.deltas, latest, restarted=restarted)


__all__ = ["Call", "ChatRead", "Cursor", "Line", "Reader", "Summary", "fold_lines", "read_chat", "save_usage"]
