"""From facts and the person's arrangement to the `Session` rows every front end renders."""

from __future__ import annotations

import os

from lunavect.core.model import Session, session_key
from lunavect.core.resume_command import attach_command, display_command
from lunavect.core.rules import Decision, Facts
from lunavect.core.rules.presence import is_open, shown_by
from lunavect.core.times import iso, local_text
from lunavect.host.name import machine_name


def fallback_title(project: str | None, started: float | None) -> str:
    """What names a session that its client did not name (yet): its project and local start time, so that no
    row is an empty cell."""
    when = local_text(started, "%Y-%m-%d %H:%M") or None
    return " · ".join(part for part in (project or "no project", when) if part)


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
    shown: bool | None = None,
) -> Session:
    """The stored row of one session. Pinned and hidden are the person's arrangement, not the collector's
    knowledge: the row leaves them false and `sessions.read_rows`, their one reader, sets them from it.
    `alive` is the liveness of the process the facts name (None when none is known or it was not asked),
    `writer` the writer proof (Codex), `shown` the liveness of the process that shows the session when that is
    another (`presence.shown_by`; None: the same as `alive`). The row's process is the one that shows it."""
    pid, pstart, tty = shown_by(facts)
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
        # A background job comes back through its client's attach command (a resume would start a second copy).
        resume=(facts.job and attach_command(facts.provider, facts.job))
        or display_command(facts.provider, facts.session_id, cwd),
        basis=list(decision.basis),
        waiting_for=decision.waiting_for,
        updated=iso(facts.last_event_at),
        pid=pid,
        tty=tty,
        pstart=pstart,
        client=facts.client,
        untitled=not facts.title,
        entrypoint=facts.entrypoint,
        open=is_open(facts, decision, alive if shown is None else shown, writer),
        last_active=iso(last_active(facts)),
    )
