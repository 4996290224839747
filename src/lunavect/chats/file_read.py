"""What every incremental read of a client's session file shares, whichever client wrote the file (Gemini CLI's and
Qwen Code's chat files through `lines`, Pi's session files, Copilot CLI's events files): the read itself, the
evidence kind of each kind of line, the fold that keeps only the activity from the last prompt on, and the evidence
of the session's title, folder and file.

Each client reads its own lines and builds its own activity's evidence (their ids are its own); what they share
lives here once, so the rule that a newer prompt supersedes what came before it, and the id of a session's meta
evidence (`<provider>-meta:<session>:<digest>`, by which stored evidence is de-duplicated), cannot drift apart.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from lunavect.core.model import Evidence
from lunavect.files.tail import Cursor
from lunavect.usage import ledger

SOURCE = "transcript"
# A line longer than this (a huge tool result, an image, a snapshot of the whole conversation) is skipped unread,
# and counted.
MAX_LINE_BYTES = 8 << 20


# The evidence each kind of line a client's reader names is, whichever client's reader named it (each names only
# the kinds its client writes; `cancelled` is Gemini CLI's and Qwen Code's word for an interrupted turn).
KINDS = {
    "prompt": "TranscriptPrompt",
    "reply": "TranscriptResponse",
    "interrupt": "TranscriptInterrupt",
    "cancelled": "TranscriptInterrupt",
    "api_error": "TranscriptApiError",
    "compacted": "TranscriptCompacted",
    "tool_use": "TranscriptToolUse",
    "tool_result": "TranscriptToolResult",
}


class FileSummary(Protocol):
    """What the meta evidence needs of a file's summary, whichever client's summary it is."""

    session_id: str | None
    started: float | None
    last_at: float | None
    sent_meta: str | None


class Record(Protocol):
    """What the fold needs of one line, whichever client's reader read it."""

    @property
    def kind(self) -> str: ...


S = TypeVar("S", bound=FileSummary)
F = TypeVar("F", bound="FileRead[Any]")
L = TypeVar("L", bound=Record)


@dataclass
class FileRead(Generic[S]):
    """One read of one file: what the collector's source saves and hands on (`chats.source.FileSource`)."""

    path: str
    cursor: Cursor
    summary: S
    evidence: list[tuple[str, Evidence]] = field(default_factory=list)
    deltas: ledger.Deltas = field(default_factory=ledger.Deltas)
    restarted: bool = False
    bytes_read: int = 0
    # Lines this read skipped unread (too long, not a record): counted, never raised.
    skipped: int = 0
    # More complete lines remain past the cursor (the byte budget ran out).
    partial: bool = False

    @property
    def session_id(self) -> str | None:
        return self.summary.session_id


def fold(
    read: F,
    lines: list[bytes],
    read_line: Callable[[bytes], L | None],
    take: Callable[[F, L], list[tuple[str, Evidence]]],
) -> None:
    """Fold a file's lines into its read, `take` learning from each line and giving its evidence; only the
    activity from the last prompt on is handed over: what came before a newer prompt is superseded (the rules would
    ignore it), so a long history costs a few rows."""
    activity: list[tuple[str, Evidence]] = []
    last_prompt = 0
    for data in lines:
        if not data.strip():
            continue
        line = read_line(data)
        if line is None:
            read.skipped += 1
            continue
        found = take(read, line)
        if line.kind == "prompt" and found:
            last_prompt = len(activity)
        activity.extend(found)
    read.evidence.extend(activity[last_prompt:])


def add_meta(provider: str, read: FileRead[Any], title: str | None, cwd: str | None, now: float) -> None:
    """The session's title, folder and file, first among the read's evidence when they changed: never activity (its
    time is the session's own)."""
    summary = read.summary
    sid = summary.session_id
    if sid is None:
        return
    values = (title, cwd, read.path)
    key = hashlib.blake2b(repr(values).encode(), digest_size=8).hexdigest()
    if key == summary.sent_meta:
        return
    summary.sent_meta = key
    at = summary.started or summary.last_at or now
    evidence = Evidence(provider, sid, "TranscriptMeta", at, SOURCE, title=title, cwd=cwd, transcript=read.path)
    read.evidence.insert(0, (f"{provider}-meta:{sid}:{key}", evidence))


__all__ = ["KINDS", "MAX_LINE_BYTES", "SOURCE", "FileRead", "FileSummary", "Record", "add_meta", "fold"]
