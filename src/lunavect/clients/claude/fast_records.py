"""The two records most of a whole read is made of, folded straight into what the read keeps.

An assistant's reply block and a user record of tool results are nearly every record a transcript holds that
passes the byte test: a year of history is millions of them. Reading each into `RecordFacts` (records.py) and
folding those (summary.py, latest.py, usage.py) cost more than decoding it, in objects made for every record and
dropped at once. Here a record decoded in one pass (`TypedRecord`) is first checked to be of the plain shape
(not a sub-agent's line, no API error, no tool that starts an agent or background work, a message of the typed
shape), then folded field by field exactly as those modules fold it, without its facts; a record of any other
shape is left to them (`CommonRecords.fold` answers False and changes nothing).
tests/unit/claude/test_claude_fold.py holds the whole read to the plain reading, record by record, on every
real transcript and on generated ones.
"""

from __future__ import annotations

from lunavect.clients.claude.latest import Latest
from lunavect.clients.claude.record_shapes import TypedRecord
from lunavect.clients.claude.records import _FINAL_STOPS, READ_BY_KIND, _metadata, _valid_id, check_session
from lunavect.clients.claude.summary import FirstResponse, TranscriptSummary
from lunavect.clients.claude.usage import typed_tokens
from lunavect.core.times import epoch
from lunavect.usage import ledger

# Tools whose call records.py reads for background work: their records take the general way.
_STARTS_WORK = frozenset({"Agent", "Task", "SendMessage"})
_IN_BACKGROUND = b"run_in_background"
_NO_METADATA = (None, None, None, None, None)


class CommonRecords:
    """Folds the common records of one read into its summary, latest activity and usage history."""

    def __init__(self, summary: TranscriptSummary, latest: Latest, usage: ledger.Deltas, now: float) -> None:
        self.summary, self.latest, self.usage, self.now = summary, latest, usage, now
        # The metadata last folded (records.py hands the same tuple for the same values): taken once.
        self._metadata: tuple[str | None, ...] = _NO_METADATA

    def taken_elsewhere(self) -> None:
        """A record of another shape was folded (summary.take): its metadata may differ from the last one here."""
        self._metadata = _NO_METADATA

    def fold(self, record: TypedRecord, place: int) -> bool:
        """Fold one record when it is of a common shape; False, with nothing changed, when it is not. Raises
        Unreadable, with nothing changed, for a record naming a session that is no session id (as records.py)."""
        kind = record.type
        message = record.message
        if not isinstance(kind, str):
            return False  # records.py reads nothing from it
        if record.isSidechain is True:
            return self._sidechain(record)
        if kind not in READ_BY_KIND:
            return self._other(record)
        if message is None:
            return False
        content = message.content
        # Each activity as (kind, tool, tool use id), in the order records.py lists them.
        activities: list[tuple[str, str | None, str | None]] = []
        if kind == "user":
            if not isinstance(content, list):
                return False
            results = False
            for block in content:
                if block.type == "tool_result":
                    results = True
                    call = block.tool_use_id
                    if isinstance(call, str) and call and len(call) <= 200:
                        activities.append(("TranscriptToolResult", None, call))
            if not results:
                return False
        elif kind == "assistant":
            if record.isApiErrorMessage is True:
                return False
            for block in content if isinstance(content, list) else ():
                if block.type != "tool_use":
                    continue
                name = block.name
                if not isinstance(name, str):
                    continue  # no name: records.py skips the block
                if name in _STARTS_WORK or (name == "Bash" and _IN_BACKGROUND in bytes(block.input)):
                    return False
                call = block.id
                if isinstance(call, str) and call and len(call) <= 200 and name and len(name) <= 200:
                    activities.append(("TranscriptToolUse", name, call))
            stop = message.stop_reason
            if isinstance(stop, str) and stop in _FINAL_STOPS:
                activities.append(("TranscriptResponse", None, None))
        else:
            return False
        at = self._stamp(record, True)
        uuid = record.uuid
        if not (isinstance(uuid, str) and uuid and len(uuid) <= 200):
            uuid = None
        summary = self.summary
        session_id = record.sessionId
        if kind == "assistant":
            if summary.first_response is None and (session_id is None or session_id == summary.session_id):
                summary.first_response = FirstResponse(outcome="response", at=at, record_id=uuid, error_code=None)
            if activities and activities[-1][0] == "TranscriptResponse":
                summary.responses += 1
            self._usage(message, at)
        if at is not None:
            add = self.latest.add_one
            for index, (what, tool, call) in enumerate(activities):
                add(at, uuid, place, index, what, tool, call)
        return True

    def _stamp(self, record: TypedRecord, metadata: bool) -> float | None:
        """summary.take for the fields every record has: its time, and its metadata unless it is a sub-agent's
        line (records.py reads none from those). Raises Unreadable, with nothing changed, for a record naming
        a session that is no session id."""
        session_id = record.sessionId
        if session_id is not None and session_id != _valid_id[0]:
            check_session(session_id)
        at = epoch(record.timestamp)
        summary = self.summary
        if at is not None:
            if summary.first_at is None or at < summary.first_at:
                summary.first_at = at
            if summary.last_at is None or at > summary.last_at:
                summary.last_at = at
        if not metadata:
            return at
        taken = _metadata(record.cwd, record.gitBranch, record.version, record.entrypoint, record.sessionKind)
        if taken is not self._metadata:
            self._metadata = taken
            cwd, branch, version, entrypoint, session_kind = taken
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
        return at

    def _sidechain(self, record: TypedRecord) -> bool:
        """records.py's reading of a sub-agent's own line (older clients wrote them inline: a quarter of the
        records of such a history): its time and, for a reply, its tokens as the sub-agent's."""
        at = self._stamp(record, False)
        message = record.message
        if record.type == "assistant" and record.isApiErrorMessage is not True and message is not None:
            self._usage(message, at, subagent=True)
        return True

    def _other(self, record: TypedRecord) -> bool:
        """records.py's reading of a record of a type it reads nothing more from (a progress record that
        passed the byte test by quoting a message): its time and metadata."""
        self._stamp(record, True)
        return True

    def _usage(self, message, at: float | None, subagent: bool = False) -> None:  # noqa: ANN001 - a TypedMessage with its usage
        """usage.message_usage, summary.take_message_usage and the usage history's sum, for one reply of the
        main conversation or of a sub-agent (its counts checked by the typed decode)."""
        usage, summary = message.usage, self.summary
        if usage is None:
            return
        tokens = typed_tokens(usage)
        ident, model = message.id, message.model
        if not (isinstance(ident, str) and 0 < len(ident) <= 200):
            ident = None
        if not (isinstance(model, str) and 0 < len(model) <= 200 and model != "<synthetic>"):
            model = None
        same = ident is not None and ident == summary.last_message_id
        before = summary.last_message_tokens if same else None
        summary.last_message_id, summary.last_message_tokens = ident, tokens
        if not subagent:  # a sub-agent's reply tells neither the session's model nor its context
            if model is not None:
                summary.model = model
            summary.context = (tokens.input + tokens.cache_read + tokens.cache_write) or summary.context
        delta = tokens if before is None else tokens.minus(before)
        if delta.input or delta.output or delta.cache_read or delta.cache_write:
            self.usage.add(ledger.quarter_of(at, self.now), model, subagent, delta)
