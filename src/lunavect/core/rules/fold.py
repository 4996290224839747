"""Folding one piece of evidence into a session's facts: what every kind has in common (metadata, first and
last seen, whether the session is a task), then the fold of its own kind, found by its source."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from lunavect.core.model import Evidence
from lunavect.core.rules.catalog import fold_catalog
from lunavect.core.rules.facts import Facts
from lunavect.core.rules.hooks import fold_hook
from lunavect.core.rules.presence import TERMINAL, fold_terminal, forget_terminal
from lunavect.core.rules.rollout import fold_rollout
from lunavect.core.rules.title import fold_title
from lunavect.core.rules.transcript import fold_transcript

# Events that prove a session is a task and not a lifecycle-only launch (the guide: "until a prompt, tool,
# response or request establishes actual task activity").
ACTIVITY_EVENTS = frozenset(
    {
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "Stop",
        "StopFailure",
        "SubagentStart",
        "PreCompact",
        "Elicitation",
        "TranscriptPrompt",
        "TranscriptResponse",
        "TranscriptApiError",
        "TranscriptToolUse",
        "TranscriptToolResult",
        "RolloutTurnStarted",
        "RolloutTurnSeen",
        "RolloutTurnComplete",
        "RolloutTurnAborted",
        "RolloutTool",
        "RolloutInputRequest",
    }
)

# Session metadata any kind of evidence may name; the latest non-empty value wins.
_METADATA = ("cwd", "transcript", "title", "tty", "client", "branch", "version", "entrypoint", "tmux")

BY_SOURCE: dict[str, Callable[[Facts, Evidence], None]] = {
    "hook": fold_hook,
    "catalog": fold_catalog,
    "transcript": fold_transcript,
    "rollout": fold_rollout,
    "title": fold_title,
}


def fold(facts: Facts, ev: Evidence) -> Facts:
    """Apply one piece of evidence to a session's facts; returns a new value (the input is not changed)."""
    facts = msgspec.structs.replace(facts)
    if ev.source == TERMINAL:
        fold_terminal(facts, ev)  # where the session is shown: nothing of its state, its activity or its times
        return facts
    if facts.first_seen is None or ev.at < facts.first_seen:
        facts.first_seen = ev.at
    before = (facts.phase, facts.phase_at)
    for name in _METADATA:
        value = getattr(ev, name)
        if value:
            setattr(facts, name, value)
    if ev.pid is not None:
        if (ev.pid, ev.pstart) != (facts.pid, facts.pstart):
            forget_terminal(facts)  # another process runs it now: the terminal found for the last one is not its
        facts.pid, facts.pstart = ev.pid, ev.pstart
    if ev.kind == "CatalogStatus":
        # The latest live entry decides: a background job stopped keeps its job (attaching starts it again), one
        # resumed in a terminal since is no job.
        facts.job = ev.job
    if ev.kind in ACTIVITY_EVENTS:
        facts.active = True
    if facts.last_event_at is None or ev.at >= facts.last_event_at:
        facts.last_event_at = ev.at
        facts.last_event = ev.kind
    if ev.source == "hook":
        facts.hooked = True
        facts.hooked_at = max(ev.at, facts.hooked_at or ev.at)
    folder = BY_SOURCE.get(ev.source)
    if folder is not None:
        folder(facts, ev)
    if ev.kind in ACTIVITY_EVENTS:
        if facts.retry_error and ev.at > (facts.retry_at or 0.0):
            facts.retry_error = None  # a response flows again: back to plain working
        facts.progress_at = max(ev.at, facts.progress_at or ev.at)
    if (facts.phase, facts.phase_at) != before or not facts.basis:
        # The basis is the evidence that decided the current phase, not every source ever seen.
        facts.basis = (ev.source,)
    return facts
