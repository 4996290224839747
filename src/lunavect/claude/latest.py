"""What a transcript hands the collector as activity: its last prompt and what followed it.

Everything before a newer prompt is superseded by it, so a long history costs a few rows, not one per record.
The same selection serves a whole read and a glance at the tail (glance.py); each record's evidence id names
the session and the record, so the two give the same ids for the same record and the collector stores it once.
"""

from __future__ import annotations

from collections import deque

from lunavect.claude.records import RecordFacts
from lunavect.core.model import Evidence

PROVIDER = "claude"
# Activity kept after a transcript's last prompt within one read: the latest tool records (earlier ones only
# refreshed what the latest do) and, apart, the latest records that move the turn (responses, errors,
# interrupts, wakes).
TAIL_TOOLS = 64
TAIL_TURNS = 256
_TOOL_KINDS = frozenset({"TranscriptToolUse", "TranscriptToolResult"})


def _evidence(session_id: str, facts: RecordFacts, index: int) -> tuple[str, Evidence]:
    """One activity of a record as evidence, with an id that is the same whenever the record is read."""
    act = facts.activity[index]
    assert facts.at is not None
    return (
        f"transcript:{session_id}:{facts.uuid or f'@{facts.place}'}:{index}",
        Evidence(
            provider=PROVIDER,
            session_id=session_id,
            kind=act.kind,
            at=facts.at,
            source="transcript",
            tool=act.tool,
            tool_use_id=act.tool_use_id,
            error=act.error,
            http_status=act.http_status,
            notification_only=act.notification_only,
        ),
    )


class Latest:
    """The last prompt of the records added (in file order) and the activity that followed it.

    A whole read adds every record of a file, and a later prompt supersedes most of them, so only what is kept
    at the end becomes evidence: the records are held (a bounded number) and turned into evidence when asked.
    """

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._prompt: tuple[RecordFacts, int] | None = None
        self._tools: deque[tuple[int, RecordFacts, int]] = deque(maxlen=TAIL_TOOLS)
        self._turns: deque[tuple[int, RecordFacts, int]] = deque(maxlen=TAIL_TURNS)
        self._order = 0

    def add(self, facts: RecordFacts) -> None:
        if facts.at is None or not facts.activity:
            return
        for index, act in enumerate(facts.activity):
            self._order += 1
            if act.kind == "TranscriptPrompt" and not act.notification_only:
                self._prompt = (facts, index)
                self._tools.clear()  # a new prompt supersedes everything before it
                self._turns.clear()
            else:
                (self._tools if act.kind in _TOOL_KINDS else self._turns).append((self._order, facts, index))

    def evidence(self, after: float | None = None) -> list[tuple[str, Evidence]]:
        """The prompt, then what followed in file order; without what lies at or before `after` (a glance
        already handed it over, and older activity must not follow newer)."""
        kept = [self._prompt] if self._prompt is not None else []
        kept += [(facts, index) for _, facts, index in sorted([*self._tools, *self._turns], key=lambda i: i[0])]
        if after is not None:
            # Left out before any evidence is made: a whole read after a glance keeps nearly nothing.
            kept = [(facts, index) for facts, index in kept if facts.at is not None and facts.at > after]
        return [_evidence(self.session_id, facts, index) for facts, index in kept]

    def newest(self) -> float | None:
        """The time of the newest activity added (None when there was none)."""
        times = [ev.at for _, ev in self.evidence()]
        return max(times) if times else None
