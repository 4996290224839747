"""The two records most of a whole read is made of, folded straight into what the read keeps.

An assistant's reply block and a user record of tool results are nearly every record a transcript holds that
passes the byte test: a year of history is millions of them. Reading each into `RecordFacts` (records.py) and
folding those (summary.py, latest.py) cost more than decoding it, in objects made for every record and dropped
at once. Here a record decoded in one pass (`TypedRecord`) is first checked to be of the plain shape (not a
sub-agent's line, no API error, no tool that starts an agent or background work, a message of the typed
shape), then folded field by field exactly as those modules fold it, without its facts; a record of any other
shape is left to them (`fold_common` answers False and changes nothing). tests/unit/claude/test_claude_fold.py
holds the whole read to the plain reading, record by record, on every real transcript and on generated ones.
"""

from __future__ import annotations

from lunavect.claude.latest import Latest
from lunavect.claude.record_shapes import TypedRecord
from lunavect.claude.records import _FINAL_STOPS, Unreadable, _metadata, _valid_id
from lunavect.claude.summary import FirstResponse, TranscriptSummary, take_message_usage
from lunavect.claude.usage import message_usage
from lunavect.core.ids import is_session_id
from lunavect.core.times import epoch
from lunavect.usage import ledger

# Tools whose call records.py reads for background work: their records take the general way.
_STARTS_WORK = frozenset({"Agent", "Task", "SendMessage"})
_IN_BACKGROUND = b"run_in_background"


def _short(value: object) -> str | None:
    return value if isinstance(value, str) and value and len(value) <= 200 else None


def fold_common(
    record: TypedRecord,
    place: int,
    summary: TranscriptSummary,
    latest: Latest,
    usage: ledger.Deltas,
    now: float,
) -> bool:
    """Fold one record when it is of a common shape; False, with nothing changed, when it is not. Raises
    Unreadable, with nothing changed, for a record naming a session that is no session id (as records.py)."""
    kind = record.type
    message = record.message
    if record.isSidechain is True or message is None:
        return False
    content = message.content
    # Each activity as (kind, tool, tool use id), in the order records.py lists them.
    activities: list[tuple[str, str | None, str | None]] = []
    if kind == "user":
        if not isinstance(content, list):
            return False
        results = [block for block in content if block.type == "tool_result"]
        if not results:
            return False
        for block in results:
            call = _short(block.tool_use_id)
            if call is not None:
                activities.append(("TranscriptToolResult", None, call))
    elif kind == "assistant":
        if record.isApiErrorMessage is True:
            return False
        for block in content if isinstance(content, list) else ():
            if block.type != "tool_use":
                continue
            name = block.name
            if isinstance(name, str) and (
                name in _STARTS_WORK or (name == "Bash" and _IN_BACKGROUND in bytes(block.input))
            ):
                return False
            call, name = _short(block.id), _short(name)
            if call is not None and name is not None:
                activities.append(("TranscriptToolUse", name, call))
        stop = message.stop_reason
        if isinstance(stop, str) and stop in _FINAL_STOPS:
            activities.append(("TranscriptResponse", None, None))
    else:
        return False
    session_id = record.sessionId
    if session_id is not None and session_id != _valid_id[0]:
        if not is_session_id(session_id):
            raise Unreadable
        _valid_id[0] = session_id
    at = epoch(record.timestamp)
    uuid = _short(record.uuid)
    cwd, branch, version, entrypoint, session_kind = _metadata(
        record.cwd, record.gitBranch, record.version, record.entrypoint, record.sessionKind
    )
    tokens = message_usage(message.id, message.model, message.usage, subagent=False) if kind == "assistant" else None

    # summary.take, for these fields only (the others are none in such a record)
    if at is not None:
        if summary.first_at is None or at < summary.first_at:
            summary.first_at = at
        if summary.last_at is None or at > summary.last_at:
            summary.last_at = at
    if cwd:
        summary.cwd = cwd
    if branch:
        summary.branch = branch
    if version:
        summary.version = version
    if entrypoint:
        summary.entrypoint = entrypoint
    if session_kind:
        summary.session_kind = session_kind
    if kind == "assistant":
        own_id = _short(session_id)
        own = own_id is None or own_id == summary.session_id
        if summary.first_response is None and own:
            summary.first_response = FirstResponse(outcome="response", at=at, record_id=uuid, error_code=None)
        if activities and activities[-1][0] == "TranscriptResponse":
            summary.responses += 1
        # summary.take_usage, then the usage history (fold.py)
        if tokens is not None:
            added = take_message_usage(summary, tokens)
            if added is not None:
                usage.add(ledger.hour_of(at, now), tokens.model, tokens.subagent, added)
    if at is not None:
        for index, (what, tool, call) in enumerate(activities):
            latest.add_one(at, uuid, place, index, what, tool, call)
    return True
