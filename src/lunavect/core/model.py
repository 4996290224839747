"""The shapes every part of lunavect agrees on: evidence in, sessions out.

Evidence is a small typed fact with the time it describes and where it came from; a session is the one
serialisable snapshot every front end renders (`lunavect list --json` is exactly a list of them).
"""

from __future__ import annotations

import enum

import msgspec

from lunavect.core.tokens import SessionUsage


class State(enum.StrEnum):
    """A session's state. A string enum, so that it prints, formats and serialises as its value."""

    WORKING = "working"
    BACKGROUND = "background"
    COMPACTING = "compacting"
    PERMISSION = "permission"
    INPUT = "input"
    READY = "ready"
    IDLE = "idle"
    ERROR = "error"
    OFFLINE = "offline"
    UNKNOWN = "unknown"


# States in which a session counts as working, and as awaiting its person, for the header counters.
WORKING_STATES = frozenset({State.WORKING, State.BACKGROUND, State.COMPACTING, State.OFFLINE})
AWAITING_STATES = frozenset({State.PERMISSION, State.INPUT})


class ErrorReason(enum.StrEnum):
    LIMIT = "limit"
    UNREACHABLE = "unreachable"
    SERVICE = "service"
    AUTH = "auth"
    ACCOUNT = "account"
    OTHER = "other"


class BackgroundTask(msgspec.Struct, frozen=True, omit_defaults=True):
    """One background task as a hook reported it: a kind and an id, never its command or description."""

    kind: str
    id: str | None = None
    status: str | None = None
    service: bool = False


class Evidence(msgspec.Struct, frozen=True, omit_defaults=True):
    """One observed fact about one session.

    `at` is the time the fact describes and never changes when the fact is read again; `source` says which
    kind of observation it is (hook, transcript, catalog, process).
    """

    provider: str
    session_id: str
    kind: str
    at: float
    source: str = "hook"
    tool: str | None = None
    tool_use_id: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    prompt_id: str | None = None
    turn_id: str | None = None
    start_source: str | None = None
    trigger: str | None = None
    reason: str | None = None
    notification: str | None = None
    error: str | None = None
    error_detail: str | None = None
    http_status: int | None = None
    # A live catalog's status (idle, busy, waiting) and what it waits for.
    status: str | None = None
    waiting_for: str | None = None
    question: bool = False
    interrupt: bool = False
    notification_only: bool = False
    background: tuple[BackgroundTask, ...] | None = None
    background_started: BackgroundTask | None = None
    background_ended: tuple[BackgroundTask, ...] = ()
    crons: int = 0
    pid: int | None = None
    pstart: float | None = None
    tty: str | None = None
    cwd: str | None = None
    transcript: str | None = None
    title: str | None = None
    mode: str | None = None
    # Which client runs the session (e.g. "desktop", "cli", "exec"), when its metadata proves it.
    client: str | None = None
    # Session metadata a transcript or the live catalog names (never activity): git branch, client
    # version, how the client was started (cli, sdk-cli, an editor) and its exact tmux pane.
    branch: str | None = None
    version: str | None = None
    entrypoint: str | None = None
    tmux: str | None = None
    # The job of a session its client runs in the background (Claude Code's `claude --bg`), as its live catalog
    # names it; None for any other. Its way back is the client's attach command, not a resume.
    job: str | None = None
    # The model's context window, when a hook names it and the client's files do not (Qwen Code's `Stop`): kept
    # with the session's usage (`lunavect.usage.ledger.set_window`), not folded into its state.
    context_window: int | None = None


class Session(msgspec.Struct, omit_defaults=False):
    """The snapshot of one session, as `lunavect list --json` prints it (DESIGN.md, "Contracts")."""

    id: str
    provider: str
    session_id: str
    title: str | None
    project: str | None
    cwd: str | None
    host: str
    state: State
    activity: str | None
    since: str | None
    background: dict[str, int]
    error: str | None
    pinned: bool
    hidden: bool
    resume: str | None
    basis: list[str]
    waiting_for: str | None = None
    updated: str | None = None
    pid: int | None = None
    tty: str | None = None
    # The agent process's start time (epoch s): with `pid`, the identity that survives pid reuse.
    pstart: float | None = None
    # Which client runs the session (e.g. "desktop", "cli", "exec"), when its metadata proves it.
    client: str | None = None
    # Rows of another host (sync): when that host was last heard; None for this machine's own rows.
    heard: str | None = None
    # True when nothing named the session and `title` is lunavect's own: its project and start time.
    untitled: bool = False
    # How Claude Code was started (`cli`, `sdk-cli`, `claude-vscode`, ...), as its transcript or live catalog
    # names it: returning to a task must never match a Desktop or editor session to a terminal in its folder.
    entrypoint: str | None = None
    # Tokens, model and context fill as the client's own files count them (`lunavect.usage`); None when the
    # session's files hold no usage (yet), or for another host's row.
    usage: SessionUsage | None = None
    # Whether the client's process that reported the session still runs: its pid with its start time (from its
    # hooks or Claude Code's live catalog) is alive and no SessionEnd came since (`core.rules.presence.is_open`).
    open: bool = False
    # When the session last did anything: its latest prompt, tool, response or request, or its entering the
    # state it is in (`collector.snapshot.last_active`). Never a re-read, an idle poll or the snapshot's write.
    last_active: str | None = None
    # What the session's client can tell of a session, and from where (`Client.tells`, `core.telling`): filled in
    # from this machine's descriptors when the row is read, never stored; None for a client lunavect does not know.
    tells: dict[str, list[str]] | None = None
    # The person dismissed the ready reply or the error the row shows (`core.dismissal`): it stays listed but
    # needs them no more, until the session's next one. The arrangement's, like `pinned`.
    dismissed: bool = False
    # The session runs in a tmux pane of its machine (a row sync carries: `collector.tmux_rows`): another
    # machine's `open` then attaches to that pane over ssh. A boolean, so another machine can make this one run
    # nothing by it. False on a row of this machine that sync does not carry, and whenever unknown.
    in_tmux: bool = False


def session_key(provider: str, session_id: str) -> str:
    """The id a session is known by everywhere: `claude:<session id>` or `codex:<thread id>`."""
    return f"{provider}:{session_id}"
