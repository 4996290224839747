"""From facts and the person's arrangement to the `Session` rows every front end renders."""

from __future__ import annotations

import os

from lunavect.core.model import Session, session_key
from lunavect.core.resume_command import display_command
from lunavect.core.rules import Decision, Facts
from lunavect.core.times import iso, local_text
from lunavect.host.name import machine_name


def fallback_title(project: str | None, started: float | None) -> str:
    """What names a session that its client did not name (yet): its project and local start time, so that no
    row is an empty cell."""
    when = local_text(started, "%Y-%m-%d %H:%M") or None
    return " · ".join(part for part in (project or "no project", when) if part)


def build_session(
    facts: Facts,
    decision: Decision,
    *,
    host: str | None = None,
) -> Session:
    """The stored row of one session. Pinned and hidden are the person's arrangement, not the collector's
    knowledge: the row leaves them false and `sessions.read_rows`, their one reader, sets them from it."""
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
    )
