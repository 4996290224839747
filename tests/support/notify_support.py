"""A session row as the notifier is handed it (a snapshot row at a fixed clock), for the tests of what notifies,
how the command and the desktop show it, and what the limits' warnings say."""

from __future__ import annotations

from unit_support import a_session

from lunavect.collector.snapshot import iso
from lunavect.core.model import Session, State

T0 = 1_800_000_000.0


def row(n: int = 1, state: State = State.READY, at: float = T0, **fields: object) -> Session:
    base: dict[str, object] = dict(
        title=f"task {n}",
        project=f"proj{n}",
        cwd=f"/src/proj{n}",
        host="here",
        state=state,
        updated=iso(at),
        client="cli",
    )
    base.update(fields)
    return a_session(f"s{n}", **base)
