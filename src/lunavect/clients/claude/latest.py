"""What a transcript hands the collector as activity: its last prompt and what followed it.

Everything before a newer prompt is superseded by it, so a long history costs a few rows, not one per record.
The same selection serves a whole read and a glance at the tail (glance.py); each record's evidence id names
the session and the record, so the two give the same ids for the same record and the collector stores it once.
"""

from __future__ import annotations

from collections import deque

from lunavect.clients.claude.record_facts import RecordFacts
from lunavect.core.model import Evidence

PROVIDER = "claude"
# Activity kept after a transcript's last prompt within one read: the latest tool records (earlier ones only
# refreshed what the latest do) and, apart, the latest records that move the turn (responses, errors,
# interrupts, wakes).
TAIL_TOOLS = 64
TAIL_TURNS = 256
_TOOL_KINDS = frozenset({"TranscriptToolUse", "TranscriptToolResult"})


# One activity kept: (order, at, uuid, place, its index in its record, kind, tool, tool use id, error, HTTP
# status, notification only). Plain tuples: a whole read keeps thousands for a moment, and builds evidence only
# of the few left at its end.
_Kept = tuple[int, float, "str | None", int, int, str, "str | None", "str | None", "str | None", "int | None", bool]


class Latest:
    """The last prompt of the records added (in file order) and the activity that followed it.

    A whole read adds every record of a file, and a later prompt supersedes most of them, so only what is kept
    at the end becomes evidence: the records' activity is held (a bounded number) and turned into evidence when
    asked.
    """

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._prompt: _Kept | None = None
        self._tools: deque[_Kept] = deque(maxlen=TAIL_TOOLS)
        self._turns: deque[_Kept] = deque(maxlen=TAIL_TURNS)
        self._order = 0

    def add(self, facts: RecordFacts) -> None:
        if facts.at is None or not facts.activity:
            return
        for index, act in enumerate(facts.activity):
            self.add_one(
                facts.at,
                facts.uuid,
                facts.place,
                index,
                act.kind,
                act.tool,
                act.tool_use_id,
                act.error,
                act.http_status,
                act.notification_only,
            )

    def add_one(
        self,
        at: float,
        uuid: str | None,
        place: int,
        index: int,
        kind: str,
        tool: str | None = None,
        tool_use_id: str | None = None,
        error: str | None = None,
        http_status: int | None = None,
        notification_only: bool = False,
    ) -> None:
        """One activity of a record (`index`: its place among the record's activities), as `add` takes each:
        the fast whole read (fold.py) adds a record's activities this way without building its facts."""
        self._order += 1
        kept = (self._order, at, uuid, place, index, kind, tool, tool_use_id, error, http_status, notification_only)
        if kind == "TranscriptPrompt" and not notification_only:
            self._prompt = kept
            self._tools.clear()  # a new prompt supersedes everything before it
            self._turns.clear()
        else:
            (self._tools if kind in _TOOL_KINDS else self._turns).append(kept)

    def evidence(self, after: float | None = None) -> list[tuple[str, Evidence]]:
        """The prompt, then what followed in file order; without what lies at or before `after` (a glance
        already handed it over, and older activity must not follow newer)."""
        kept = [self._prompt] if self._prompt is not None else []
        kept += sorted([*self._tools, *self._turns])
        if after is not None:
            # Left out before any evidence is made: a whole read after a glance keeps nearly nothing.
            kept = [item for item in kept if item[1] > after]
        return [self._evidence(item) for item in kept]

    def _evidence(self, kept: _Kept) -> tuple[str, Evidence]:
        """One activity as evidence, with an id that is the same whenever its record is read."""
        _, at, uuid, place, index, kind, tool, tool_use_id, error, http_status, notification_only = kept
        return (
            f"transcript:{self.session_id}:{uuid or f'@{place}'}:{index}",
            Evidence(
                provider=PROVIDER,
                session_id=self.session_id,
                kind=kind,
                at=at,
                source="transcript",
                tool=tool,
                tool_use_id=tool_use_id,
                error=error,
                http_status=http_status,
                notification_only=notification_only,
            ),
        )

    def newest(self) -> float | None:
        """The time of the newest activity added (None when there was none)."""
        times = [ev.at for _, ev in self.evidence()]
        return max(times) if times else None
