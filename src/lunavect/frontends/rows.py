"""What one session row says in every front end: its state words (`core.state_words`), the response timer and the
background capsule.

Kept apart from any screen so the terminal panel and the web panel say the same words (and the wording is
tested without a screen), and so every word here comes from the session's kinds, counts, tool names and times
alone: no front end ever has private text to show.
"""

from __future__ import annotations

import time

from lunavect.core import clients, state_words, telling
from lunavect.core.model import AWAITING_STATES, WORKING_STATES, Session
from lunavect.core.state_words import ENDED_MARK, OPEN_MARK
from lunavect.core.terminal_text import clean
from lunavect.core.times import age, elapsed, epoch
from lunavect.listing.attention import Summary
from lunavect.listing.hosts import silent_host_row
from lunavect.tmux_status.options import count_parts
from lunavect.usage.text import usage_line

# Background work kinds as the hook shim names them, singular and plural, in the order the detail lists them.
KIND_WORDS = {
    "shell": ("command", "commands"),
    "agent": ("agent", "agents"),
    "monitor": ("monitor", "monitors"),
    "workflow": ("workflow", "workflows"),
    "other": ("other task", "other tasks"),
}


def place(session: Session) -> str | None:
    """Where the session works: its project, and for another machine's session (sync) `host: project`."""
    if session.heard is None:
        return session.project
    return f"{session.host}: {session.project or ''}"


def state_label(session: Session) -> str:
    """The state with its detail (`core.state_words`), or a silent machine's row as when it was last heard."""
    if silent_host_row(session):
        heard = epoch(session.heard)
        when = time.strftime("%H:%M", time.localtime(heard)) if heard is not None else "never"
        return f"Offline: {session.host} last heard {when}"
    return state_words.state_words(session)


def works(session: Session) -> bool:
    return session.state in WORKING_STATES and not silent_host_row(session)


def background_count(session: Session) -> int:
    """The capsule's number: Claude's running background tasks, shown only while the session works."""
    if not works(session):
        return 0
    return sum(n for n in session.background.values() if n > 0)


def background_detail(session: Session) -> str:
    """Counts by kind, e.g. "2 commands, 1 agent": never a command or a description."""
    parts = []
    kinds = sorted(session.background, key=lambda k: (list(KIND_WORDS).index(k) if k in KIND_WORDS else 99, k))
    for kind in kinds:
        count = session.background[kind]
        if count <= 0:
            continue
        one, many = KIND_WORDS.get(kind, (kind, kind))
        parts.append(f"{count} {one if count == 1 else many}")
    return ", ".join(parts)


def timer_start(session: Session) -> float | None:
    """When the row's timer started: the current response's (or the compaction's) start, never the session's;
    for a session that waits for its person with no response running (a closing question after its reply), the
    moment it began to wait. None: no timer."""
    started = epoch(session.since)
    if started is None and session.state in AWAITING_STATES:
        started = epoch(session.last_active)
    return started


def timer(session: Session, now: float) -> str:
    """The row's timer (`timer_start`); empty without one."""
    started = timer_start(session)
    if started is None:
        return ""
    return elapsed(now - started)


def ago(iso: str | None, now: float) -> str:
    """How long ago something happened, for rows without a running timer."""
    then = epoch(iso)
    if then is None:
        return ""
    return elapsed(now - then) + " ago"


def last_seen(session: Session, now: float) -> str:
    """How long ago the session last did anything (`3 min`, `2 h`, `5 d`), after its open or ended mark; just the
    mark when that time is unknown."""
    mark = OPEN_MARK if session.open else ENDED_MARK
    then = epoch(session.last_active)
    return mark if then is None else f"{mark} {age(now - then)}"


def presence(session: Session, now: float) -> str:
    """The same in words, for a row's detail: `Open · last active 3 min ago`, `Ended · last active 5 d ago`."""
    word = "Open" if session.open else "Ended"
    then = epoch(session.last_active)
    if then is None:
        return word
    when = age(now - then)
    return f"{word} · last active " + ("just now" if when == "now" else f"{when} ago")


def cannot_report(session: Session) -> str:
    """What the row's client can never report ("Codex cannot report background tasks."), so a person knows what
    its quiet means; empty for a client that reports everything, or one lunavect does not know."""
    client = clients.by_id(session.provider)
    return (telling.cannot_tell_line(client) or "") if client is not None else ""


def tooltip(session: Session, now: float) -> str:
    """The row's hidden detail: ids, kinds, counts and times only."""
    lines = [
        clean(session.title or "(untitled session)"),
        clean(f"{session.provider} · {session.project or 'no project'}"),
    ]
    lines.append(clean(state_label(session)))
    lines.append(presence(session, now))
    count = background_count(session)
    if count:
        lines.append(clean(f"Background: {background_detail(session)}"))
    spent = usage_line(session.usage)
    if spent:
        lines.append(clean(spent))
    running = timer(session, now)
    if running:
        lines.append(f"This response: {running}" if session.since else f"Waiting for you: {running}")
    elif session.updated:
        lines.append(f"Last activity: {ago(session.updated, now)}")
    cannot = cannot_report(session)
    if cannot:
        lines.append(cannot)
    lines.append(clean(session.id, 120))
    return "\n".join(lines)


# -- a session, and the counts, as one short line (the bars, the tray, the popup) -----------------------


def waited(session: Session, now: float | None = None) -> str:
    """How long a session has been in its state, as every front end shows a duration: from its timer's start,
    else from when it entered the state (an error's age runs from the error, not from a later end)."""
    since = timer_start(session) or epoch(session.last_active) or epoch(session.updated)
    if since is None:
        return ""
    return elapsed((time.time() if now is None else now) - since)


def label(session: Session) -> str:
    """A session as one short line: its state in the panel's words, its title or project, and its client
    (`Permission needed: Bash · Deploy the site (Claude)`; outside text made harmless)."""
    name = clean((session.title or session.project or session.session_id[:8]).strip(), limit=48)
    client = clean(state_words.client_label(session.provider), limit=16)
    return f"{clean(state_label(session), limit=60)} · {name} ({client})"


def counts_text(summary: Summary) -> str:
    """The counts in words, as the panel's header says them: `⚙ 2 working · ◆ 1 awaiting input · ✗ 1 error`."""
    return " · ".join(count_parts(summary))
