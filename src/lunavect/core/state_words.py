"""The list's words: what a state and an error are called, their tone, and the marks and counters of the list.

One owner for every surface (the panel, the web page, `list`, `watch`, `status`, tmux, the bars, the tray and the
notifications), so that no two of them say a state differently, and so that a new state is one row in each table
here, which `tests/unit/core/test_state_words.py` checks against `State` and `ErrorReason`. A stylesheet colours
a row by its tone (five of them), never by its state, so a new state can never go unstyled.

Pure data and pure functions of a session: the client's name in an error comes from its descriptor, so a
Codex row that cannot reach its model never says "Can't reach Claude".
"""

from __future__ import annotations

from lunavect.core import clients
from lunavect.core.model import ErrorReason, Session, State

# The five tones a row is coloured by: it works; it waits for its person; its reply is ready; it rests (or
# nobody knows what it does); something went wrong.
TONES = ("working", "waiting", "ready", "idle", "error")

TONE: dict[State, str] = {
    State.WORKING: "working",
    State.BACKGROUND: "working",
    State.COMPACTING: "working",
    State.PERMISSION: "waiting",
    State.INPUT: "waiting",
    State.READY: "ready",
    State.IDLE: "idle",
    State.UNKNOWN: "idle",
    State.ERROR: "error",
    State.OFFLINE: "error",
}

# The guide's words for each state ("Reading a session").
STATE_WORDS: dict[State, str] = {
    State.WORKING: "Working",
    State.BACKGROUND: "In background",
    State.COMPACTING: "Compacting context",
    State.PERMISSION: "Permission needed",
    State.INPUT: "Input needed",
    State.READY: "Response ready",
    State.IDLE: "Idle",
    State.ERROR: "Error",
    State.OFFLINE: "No network",
    State.UNKNOWN: "Unknown or stale",
}

# The guide's error reasons, as words in a sentence (a row capitalises them): `{client}` is the client's short
# name from its descriptor ("Claude", "Codex").
ERROR_WORDS: dict[ErrorReason, str] = {
    ErrorReason.LIMIT: "limit reached",
    ErrorReason.UNREACHABLE: "can't reach {client}",
    ErrorReason.SERVICE: "service error",
    ErrorReason.AUTH: "sign in again",
    ErrorReason.ACCOUNT: "account issue",
    ErrorReason.OTHER: "error",
}

# What a session that needs input waits for.
WAITING_WORDS = {"question": "question", "elicitation": "form", "link": "open a link"}

# -- the marks of the list, the same on every surface ------------------------------------------------------

PIN_MARK = "⚑"
# A row's open-or-ended mark: the client still runs, or it has ended (a saved title never makes a session open).
OPEN_MARK = "●"
ENDED_MARK = "○"
# What the marks mean, where a surface explains them.
LEGEND = f"{OPEN_MARK} open: its client still runs  ·  {ENDED_MARK} ended  ·  {PIN_MARK} pinned"

# The counters: each one's mark, and its words for one and for several.
WORKING_MARK = "⚙"
AWAITING_MARK = "◆"
ERRORS_MARK = "✗"
COUNTERS = (
    ("working", WORKING_MARK, "working", "working"),
    ("awaiting_input", AWAITING_MARK, "awaiting input", "awaiting input"),
    ("errors", ERRORS_MARK, "error", "errors"),
)


def tone(state: State | str) -> str:
    """The tone a row of this state is coloured by (a state lunavect does not know rests, as unknown does)."""
    try:
        return TONE[State(state)]
    except ValueError:
        return "idle"


def client_label(provider: str) -> str:
    """The client's short name as shown ("Claude", "Codex"), or its id for a client lunavect does not know."""
    client = clients.by_id(provider)
    return client.label if client is not None else provider


def error_words(reason: str | None, provider: str) -> str:
    """An error's reason in a sentence's words ("can't reach Codex"); a reason lunavect does not know is
    "error"."""
    try:
        words = ERROR_WORDS[ErrorReason(reason or ErrorReason.OTHER)]
    except ValueError:
        words = ERROR_WORDS[ErrorReason.OTHER]
    return words.format(client=client_label(provider))


def capitalised(words: str) -> str:
    return words[:1].upper() + words[1:]


def state_words(session: Session) -> str:
    """The state with its detail, as every surface says it: the tool that runs, the error's reason, what a
    waiting session waits for ("Working: Bash", "Can't reach Codex", "Permission needed: Bash")."""
    state = session.state
    if state == State.WORKING:
        if session.error:
            # The client retries a failed request: its reason, not plain working.
            return capitalised(error_words(session.error, session.provider)) + ", retrying"
        activity = session.activity or "thinking"
        return "Thinking" if activity == "thinking" else f"Working: {activity}"
    if state == State.ERROR:
        return capitalised(error_words(session.error, session.provider))
    if state == State.PERMISSION and session.waiting_for:
        return f"Permission needed: {session.waiting_for}"
    if state == State.INPUT and session.waiting_for:
        return f"Input needed: {WAITING_WORDS.get(session.waiting_for, session.waiting_for)}"
    try:
        return STATE_WORDS[State(state)]
    except ValueError:
        return capitalised(str(state))


def count_words(name: str, count: int, short: bool = False) -> str:
    """One counter as every surface says it: `⚙ 2 working`, `✗ 1 error`; `short` (the bars): `⚙ 2`."""
    for key, mark, one, many in COUNTERS:
        if key == name:
            return f"{mark} {count}" if short else f"{mark} {count} {one if count == 1 else many}"
    raise KeyError(name)
