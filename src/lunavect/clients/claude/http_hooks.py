"""Which of Claude Code's hook events lunavect takes as HTTP hooks, and the handler it writes for them.

Claude Code 2.1.328 does not fall back when an HTTP hook fails: while no collector listens, the event is
lost (tests/clients/NOTES.md). So only the events whose loss the transcript makes good go by HTTP: a tool
call's PreToolUse and PostToolUse(Failure), two per tool call, the cost HTTP hooks are for. What they tell
(the running tool, a permission or dialog answered, the turn still fresh) the transcript tells too, one
record per tool use and per tool result (core/rules/transcript.py folds them for hooked sessions); every
other event (a turn's start and end, permission requests, notifications, compaction, sub-agents, the
session's start and end) changes state that nothing else proves as exactly, and keeps the command shim,
which needs no collector (its events wait in the spool). tests/unit/core/test_http_hook_loss.py proves it.

The handler names the listener's URL with the per-install secret as a literal header (no environment
needed) and a short timeout: a listener that accepts and never answers holds the hook for its whole timeout.
When the person's settings restrict HTTP hooks (`allowedHttpHookUrls`), lunavect's exact URL is added to
their list, and taken out again on uninstall; without the setting every URL is allowed and nothing is added.
"""

from __future__ import annotations

from collections.abc import Callable

from lunavect.install.command import HTTP_PATH_PREFIX

HTTP_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
HOOK_PATH = HTTP_PATH_PREFIX + "claude"
SECRET_HEADER = "X-Lunavect-Secret"
# Seconds. The listener answers at once (well under a millisecond on loopback); this only bounds how long a
# wedged listener could hold one tool call.
TIMEOUT_S = 1
ALLOW_KEY = "allowedHttpHookUrls"


def url(port: int) -> str:
    return f"http://127.0.0.1:{port}{HOOK_PATH}"


def handler(port: int, secret: str) -> dict:
    return {"type": "http", "url": url(port), "headers": {SECRET_HEADER: secret}, "timeout": TIMEOUT_S}


def handlers(port: int, secret: str) -> dict[str, dict]:
    return {event: handler(port, secret) for event in HTTP_EVENTS}


def _is_ours(pattern: object) -> bool:
    return isinstance(pattern, str) and HTTP_PATH_PREFIX in pattern


def allowing(port: int | None) -> Callable[[dict], dict]:
    """The settings with lunavect's URL in the person's own allow-list (and no other lunavect URL), when they
    have one; `port=None` only takes lunavect's URLs out."""

    def transform(settings: dict) -> dict:
        allowed = settings.get(ALLOW_KEY)
        if not isinstance(allowed, list):
            return settings  # absent: every URL is allowed; not a list: Claude's to complain about, not ours
        kept = [p for p in allowed if not _is_ours(p)]
        if port is not None:
            kept.append(url(port))
        return settings if kept == allowed else {**settings, ALLOW_KEY: kept}

    return transform
