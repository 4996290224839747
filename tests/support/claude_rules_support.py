"""The Claude Code rule tests' common ground: one session's evidence at times after a fixed clock, folded in
order, and the turns several of them start from."""

from __future__ import annotations

from lunavect.core.model import Evidence
from lunavect.core.rules import Facts, fold

T0 = 1_800_000_000.0


def ev(kind: str, at: float, source: str = "hook", **fields) -> Evidence:
    return Evidence(provider="claude", session_id="s", kind=kind, at=T0 + at, source=source, **fields)


def play(*events: Evidence, facts: Facts | None = None) -> Facts:
    facts = facts or Facts("claude", "s")
    for event in events:
        facts = fold(facts, event)
    return facts


# A prompt whose turn is running Bash, and the same turn stopped on Bash's permission prompt.
BASH_TURN = (ev("UserPromptSubmit", 0), ev("PreToolUse", 1, tool="Bash", tool_use_id="t1"))
ASKING = (*BASH_TURN, ev("PermissionRequest", 2, tool="Bash"))
