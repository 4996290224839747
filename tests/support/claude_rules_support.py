"""The Claude Code rule tests' common ground: one session's evidence at times after a fixed clock (from its hooks,
or read from its transcript), folded in order, the turns several of them start from, and how each StopFailure
reads."""

from __future__ import annotations

from lunavect.core.model import ErrorReason, Evidence
from lunavect.core.rules import Facts, fold

T0 = 1_800_000_000.0


def ev(kind: str, at: float, source: str = "hook", **fields) -> Evidence:
    return Evidence(provider="claude", session_id="s", kind=kind, at=T0 + at, source=source, **fields)


def transcript_ev(kind: str, at: float, source: str = "transcript", **fields) -> Evidence:
    """Evidence read from the transcript: a session seen without hooks."""
    return ev(kind, at, source, **fields)


def play(*events: Evidence, facts: Facts | None = None) -> Facts:
    facts = facts or Facts("claude", "s")
    for event in events:
        facts = fold(facts, event)
    return facts


# A prompt whose turn is running Bash, and the same turn stopped on Bash's permission prompt.
BASH_TURN = (ev("UserPromptSubmit", 0), ev("PreToolUse", 1, tool="Bash", tool_use_id="t1"))
ASKING = (*BASH_TURN, ev("PermissionRequest", 2, tool="Bash"))

# A StopFailure's error and detail as Claude Code sends them, and the reason every front end shows for them.
STOP_FAILURES = [
    ("rate_limit", None, ErrorReason.LIMIT),
    ("authentication_failed", None, ErrorReason.AUTH),
    ("server_error", None, ErrorReason.SERVICE),
    ("server_error", "ECONNREFUSED", ErrorReason.UNREACHABLE),
    ("overloaded", None, ErrorReason.SERVICE),
    ("billing_error", None, ErrorReason.ACCOUNT),
    ("oauth_org_not_allowed", None, ErrorReason.ACCOUNT),
    ("network_error", None, ErrorReason.UNREACHABLE),
    ("connection_error", None, ErrorReason.UNREACHABLE),
    ("invalid_request", None, ErrorReason.OTHER),
    ("max_output_tokens", None, ErrorReason.OTHER),
    ("unknown", None, ErrorReason.OTHER),
    (None, None, ErrorReason.OTHER),
]
