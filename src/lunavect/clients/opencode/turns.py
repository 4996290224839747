"""What OpenCode's database says of a session: its title and folder, and its latest turn, as transcript evidence.

A turn is the newest prompt of the person and what followed it: each tool call's start and end, and how the
reply ended (its end, an API error, an interruption). Everything before the newest prompt is superseded, so a
long history costs a few pieces of evidence, never one per message. A compaction's own turn (its prompt holds
a compaction part, its reply is the summary) is the client's, not the person's: it moves nothing here (the
plugin's events tell it). A question's call is no work while it runs (it waits for the person); its end is
the answer. A tool call the person refused ends the turn when nothing followed it: OpenCode stops
its loop there and writes nothing more (1.18.33).

Every piece has an id that is the same each time the same fact is read again (its message's or part's id and
what it says), so a session read at every poll stores each fact once. Pure: rows in, evidence out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from lunavect.clients.opencode.database import MessageRow, PartRow, SessionRow
from lunavect.clients.opencode.events import INPUT_TOOLS, clean_title, error_name
from lunavect.core.clients import OPENCODE
from lunavect.core.model import Evidence

SOURCE = "transcript"
_ID_PREFIX = "opencode-db"


def _key(*words: object) -> str:
    return ":".join((_ID_PREFIX, *(str(w) for w in words)))


def _ev(session: str, kind: str, at: float, **fields) -> Evidence:
    return Evidence(OPENCODE.id, session, kind, at, source=SOURCE, **fields)


def meta(row: SessionRow) -> tuple[str, Evidence] | None:
    """The session's title, folder and client version (never activity), identified by what they say."""
    title = clean_title(row.title)
    values = (title, row.folder, row.version)
    at = row.updated or row.created
    if at is None or not any(values):
        return None
    digest = hashlib.blake2b(repr(values).encode(), digest_size=8).hexdigest()
    return _key(row.id, "meta", digest), _ev(row.id, "TranscriptMeta", at, title=title, cwd=row.folder,
                                             version=row.version)  # fmt: skip


def _compactions(parts: Sequence[PartRow]) -> set[str]:
    return {p.message for p in parts if p.kind == "compaction"}


def latest_turn(session: str, messages: Sequence[MessageRow], parts: Sequence[PartRow]) -> list[tuple[str, Evidence]]:
    """The evidence of the session's newest turn (messages oldest first, with their tool and compaction parts)."""
    compaction = _compactions(parts)
    prompts = [i for i, m in enumerate(messages) if m.role == "user" and m.id not in compaction]
    if not prompts:
        return []
    start = prompts[-1]
    prompt = messages[start]
    found: list[tuple[str, Evidence]] = []
    if prompt.created is not None:
        found.append((_key(prompt.id, "prompt"), _ev(session, "TranscriptPrompt", prompt.created, turn_id=prompt.id)))
    replies = [m for m in messages[start + 1 :] if m.role == "assistant" and not m.summary]
    by_message: dict[str, list[PartRow]] = {}
    for part in parts:
        by_message.setdefault(part.message, []).append(part)
    for index, reply in enumerate(replies):
        calls = [p for p in by_message.get(reply.id, ()) if p.kind == "tool" and p.call]
        found += _calls(session, calls)
        last = index == len(replies) - 1 and reply is messages[-1]
        found += _ending(session, reply, last and any(p.refused for p in calls))
    return found


def _calls(session: str, calls: Sequence[PartRow]) -> list[tuple[str, Evidence]]:
    found: list[tuple[str, Evidence]] = []
    for call in calls:
        started = call.started or call.created
        # A question's call runs while it waits for the person (its plugin event says input needed): its start
        # is no sign of work, only its end is.
        if started is not None and call.tool not in INPUT_TOOLS:
            found.append(
                (
                    _key(call.id, "use"),
                    _ev(session, "TranscriptToolUse", started, tool=call.tool, tool_use_id=call.call),
                )
            )
        if call.status in ("completed", "error") and call.ended is not None:
            found.append(
                (
                    _key(call.id, "result"),
                    _ev(session, "TranscriptToolResult", call.ended, tool=call.tool, tool_use_id=call.call),
                )
            )
    return found


def _ending(session: str, reply: MessageRow, refused: bool) -> list[tuple[str, Evidence]]:
    """How a reply ended, once it did: its end, its failure, or its interruption (an Esc; or a refused tool
    after which the loop stopped)."""
    at = reply.completed
    if at is None:
        return []
    if reply.error == "MessageAbortedError" or (refused and reply.finish == "tool-calls" and reply.error is None):
        return [(_key(reply.id, "interrupted"), _ev(session, "TranscriptInterrupt", at, turn_id=reply.id))]
    if reply.error is not None:
        error = error_name(reply.error, reply.status)
        return [
            (
                _key(reply.id, "failed"),
                _ev(session, "TranscriptApiError", at, error=error, http_status=reply.status, turn_id=reply.id),
            )
        ]
    if reply.finish in (None, "tool-calls"):
        return []  # a step of the loop: the next one follows
    return [(_key(reply.id, "response"), _ev(session, "TranscriptResponse", at, turn_id=reply.id))]
