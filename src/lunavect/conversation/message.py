"""One displayed message and its mark.

A message stands at a place (the byte offset of the record that made it, and its part within that record),
and its mark is a digest of everything it shows. While a message stands at a place its mark does not change,
so a viewer that holds marks redraws exactly the messages whose place is new or whose mark differs (a tool
call changes once its result arrives, since it shows the result).
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Sequence

import msgspec

# How much of a result or an error a message shows, and how long a one-line summary may grow.
RESULT_CHARS = 300
SUMMARY_CHARS = 120
TEXT_CHARS = 4000
# How long a title made of a prompt's first line may grow.
TITLE_CHARS = 80


class Kind(enum.StrEnum):
    PROMPT = "prompt"  # the person's message
    TEXT = "text"  # the assistant's text
    TOOL = "tool"  # a tool call (with its result once it arrived)
    ERROR = "error"  # an API error, a failed turn
    COMPACTION = "compaction"  # the context was compacted
    TASK = "task"  # a background task (command, agent) ended, or a turn was interrupted


class Message(msgspec.Struct, frozen=True, omit_defaults=True):
    """What one message shows. `place` is `<record offset>:<part>`; `mark` the digest of the rest."""

    place: str
    kind: Kind
    text: str = ""
    tool: str | None = None
    call_id: str | None = None
    result: str | None = None
    failed: bool = False
    at: str | None = None
    # The client's own id of what this message shows, for a client that writes a message again each time it
    # changes (Gemini CLI: the last line of an id wins): a later message with the same key replaces it.
    key: str | None = None
    mark: str = ""


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters, an ellipsis saying that more was cut."""
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def one_line(text: str, limit: int = SUMMARY_CHARS) -> str:
    """The first non-empty line, shortened: what a tool call's summary and a result's headline show."""
    for line in text.splitlines():
        if line.strip():
            more = "…" if text.strip().count("\n") else ""
            short = shorten(line, limit)
            return short if short.endswith("…") or not more else short + " " + more
    return ""


def title_line(text: str, limit: int = TITLE_CHARS) -> str | None:
    """A session's title from its first prompt, as a client's session list shows it: the first non-empty line,
    its whitespace collapsed, cut to `limit`; None when there is none."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return shorten(line, limit)
    return None


def argument_summary(arguments: object, fields: Sequence[str]) -> str:
    """One line of a tool call's arguments (an object): its first non-empty field of `fields` (the command it
    runs, the file it reads), else the whole object as compact JSON."""
    if not isinstance(arguments, dict):
        return ""
    for key in fields:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return one_line(value)
    return one_line(json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))) if arguments else ""


_encoder = msgspec.json.Encoder()


def marked(message: Message) -> Message:
    """The message with its mark: a digest of what it shows (its place excluded, its kind included)."""
    shown = msgspec.structs.replace(message, place="", mark="")
    digest = hashlib.blake2b(_encoder.encode(shown), digest_size=8).hexdigest()
    return msgspec.structs.replace(message, mark=digest)
