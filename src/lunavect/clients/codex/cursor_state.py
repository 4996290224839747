"""What the Codex lifecycle cursor keeps of a rollout between reads (`CursorState`, stored by the collector):
the latest boundary, the newest tool record, and the newest usage records. Declared apart from the cursor
(cursor.py) and the usage scan (usage.py), which both fill it, so that neither needs the other to name it.
"""

from __future__ import annotations

import msgspec

from lunavect.core.tokens import Tokens
from lunavect.usage.limits import Limits


class Boundary(msgspec.Struct, frozen=True, omit_defaults=True):
    """The latest lifecycle boundary: what it was, of which turn, when it was written."""

    kind: str
    turn_id: str | None = None
    at: float | None = None
    # The open turn's own start (`task_started.started_at`), and what triggered it.
    started_at: float | None = None
    trigger: str | None = None
    reason: str | None = None
    # A turn that failed: the kind of Codex's error (`codex_error_info`) and its HTTP status, never its text.
    error: str | None = None
    http_status: int | None = None


class ToolMark(msgspec.Struct, frozen=True, omit_defaults=True):
    """The latest tool record after the boundary: a call still running, or an output (back to thinking)."""

    running: bool
    name: str | None = None
    call_id: str | None = None
    at: float | None = None


class RolloutUsage(msgspec.Struct, frozen=True, omit_defaults=True):
    """What the newest usage records of a rollout say (kept in the cursor's state between reads)."""

    total: Tokens | None = None
    context: int | None = None
    context_window: int | None = None
    at: float | None = None
    model: str | None = None
    limits: Limits | None = None
    # Where the forward read of the usage records stopped (usage_file.py): the end of the last line it folded.
    read_to: int = 0


class CursorState(msgspec.Struct, omit_defaults=True):
    """What the cursor keeps between samples (stored by the collector).

    `boundary` is the latest boundary found in the searched bytes older than every `pending` range; `seen_turn`
    is the turn id carried by the newest records searched after it (None when those held none, or when a
    boundary closed the search); `tool` the newest tool record after the boundary. `pending` lists appended byte
    ranges [start, end) not yet searched, oldest first: while any remain, the answer is provisional.
    """

    dev: int = 0
    ino: int = 0
    offset: int = 0
    mark: str = ""
    head: str = ""
    boundary: Boundary | None = None
    tool: ToolMark | None = None
    seen_turn: str | None = None
    last_at: float | None = None
    pending: list[tuple[int, int]] = []
    # The newest tool record seen in bytes newer than the pending ranges (it outranks what recovery finds).
    tool_newer: ToolMark | None = None
    # The newest usage records (codex/usage.py), found in the blocks the boundary search reads.
    usage: RolloutUsage | None = None
