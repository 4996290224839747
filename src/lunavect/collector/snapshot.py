"""From facts and the person's arrangement to the `Session` rows every front end renders."""

from __future__ import annotations

import os

from lunavect.core.model import Session, State, session_key
from lunavect.core.resume_command import display_command
from lunavect.core.rules import Decision, Facts
from lunavect.core.times import iso, local_text
from lunavect.host.name import machine_name


def fallback_title(project: str | None, started: float | None) -> str:
    """What names a session that its client did not name (yet): its project and local start time, so that no
    row is an empty cell."""
    when = local_text(started, "%Y-%m-%d %H:%M") or None
    return " · ".join(part for part in (project or "no project", when) if part)


# States that evidence keeps only while the client runs: with no process known to ask (a Codex session read
# from its rollout alone), the client that writes that evidence is open.
_RUNNING_STATES = frozenset({State.WORKING, State.COMPACTING, State.PERMISSION, State.INPUT, State.OFFLINE})


def is_open(facts: Facts, decision: Decision, alive: bool | None, writer: bool | None = None) -> bool:
    """Whether the session's client still runs, from the evidence `lunavect open` uses: the process its hooks or
    Claude Code's live catalog recorded (pid and start time, `alive`), and SessionEnd. The writer proof (Codex
    still has the session's log open for writing) proves it too; with no process known at all, only a state
    that fresh evidence of a running client keeps says so. A saved title or an old catalog entry never does."""
    if facts.ended:
        return False
    if alive is not None:
        return alive
    return writer is True or decision.state in _RUNNING_STATES


def last_active(facts: Facts) -> float | None:
    """When the session last did anything: its latest prompt, tool, response or request (`progress_at`), or its
    entering the state it is in (a turn cut short, the client's own catalog saying it works). Evidence that
    only re-reads, polls or names the session (an idle catalog row, a title) moves neither."""
    times = [t for t in (facts.progress_at, facts.phase_at) if t is not None]
    return max(times) if times else facts.last_event_at


def build_session(
    facts: Facts,
    decision: Decision,
    *,
    host: str | None = None,
    alive: bool | None = None,
    writer: bool | None = None,
) -> Session:
    """The stored row of one session. Pinned and hidden are the person's arrangement, not the collector's
    knowledge: the row leaves them false and `sessions.read_rows`, their one reader, sets them from it.
    `alive` is the liveness of the process the facts name (None when none is known or it was not asked),
    `writer` the writer proof (Codex)."""
    cwd = facts.cwd
    project = os.path.basename(cwd.rstrip("/")) if cwd else None
    return Session(
        id=session_key(facts.provider, facts.session_id),
        provider=facts.provider,
        session_id=facts.session_id,
        title=facts.title or fallback_title(project, facts.first_seen),
        project=project,
        cwd=cwd,
        host=host or machine_name(),
        state=decision.state,
        activity=decision.activity,
        since=iso(decision.since),
        background=dict(decision.background),
        error=decision.error.value if decision.error else None,
        pinned=False,
        hidden=False,
        resume=display_command(facts.provider, facts.session_id, cwd),
        basis=list(decision.basis),
        waiting_for=decision.waiting_for,
        updated=iso(facts.last_event_at),
        pid=facts.pid,
        tty=facts.tty,
        pstart=facts.pstart,
        client=facts.client,
        untitled=not facts.title,
        entrypoint=facts.entrypoint,
        open=is_open(facts, decision, alive, writer),
        last_active=iso(last_active(facts)),
    )
