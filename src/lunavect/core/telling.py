"""What each client can tell of a session, and from where, in words a person reads (`Client.tells`).

No monitor says which states it can know for each agent; lunavect does, so a person knows what a quiet row means:
a row of a client that cannot report a permission prompt may be waiting for one without a word. The README's
table, `doctor`, the panel's row detail and `list --json` all say it from here, and every one of them from the
descriptors, so a new client's row in each comes with its descriptor.
"""

from __future__ import annotations

from lunavect.core.clients import TELLS, WAYS, Client

# Each thing a row can tell, as a person names it.
WHAT = {
    "working": "working",
    "tool": "the running tool",
    "background": "background tasks",
    "compacting": "compaction",
    "permission": "permission prompts",
    "input": "questions and forms",
    "ready": "a finished reply",
    "error": "API errors and their reason",
    "ended": "that it ended",
}
# Each way a client tells it.
WAY = {
    "hook": "hooks",
    "plugin": "lunavect's plugin",
    "file": "its files",
    "catalog": "its live catalog",
    "title": "its terminal title",
    "screen": "its screen",
    "process": "its process",
}
# What is said where a client has no way to tell a thing, and where it has no such thing at all.
CANNOT = "cannot be known"
HAS_NONE = "has none"
assert set(WHAT) == set(TELLS) and set(WAY) == set(WAYS)


def cannot_tell(client: Client) -> list[str]:
    """What a row of this client can never show though the client has it, in `TELLS`' order."""
    return [what for what in TELLS if what not in client.tells]


def ways(client: Client, what: str) -> str:
    """How the client tells `what` ("hooks, its live catalog"), that it has no such thing, or that it cannot be
    known."""
    told = client.tells.get(what)
    if told is None:
        return CANNOT
    return ", ".join(WAY[way] for way in told) if told else HAS_NONE


def cannot_tell_line(client: Client) -> str | None:
    """One sentence for a row's detail: what its client can never report, so its quiet says nothing of it; None
    for a client that tells everything."""
    missing = cannot_tell(client)
    if not missing:
        return None
    words = [WHAT[what] for what in missing]
    listed = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
    return f"{client.name} cannot report {listed}."


def as_json(client: Client) -> dict[str, list[str]]:
    """The client's `tells`, as `list --json` and `doctor --json` print it."""
    return {what: list(told) for what, told in client.tells.items()}
