"""Codex's own names for errors and tools, in the vocabulary the rules and the hooks use.

A rollout says `usage_limit_exceeded` where the rules know Claude Code's `rate_limit`, and `exec_command`
where Codex's hooks say `Bash`: translated here, so both sources of one session show the same thing.
"""

from __future__ import annotations

from lunavect.clients.codex.hooks import tool_name

# The rollout tool names hooks report under another name (an `exec_command` call is `Bash` to hooks).
_HOOK_NAMES = {"exec_command": "Bash", "shell": "Bash", "local_shell": "Bash"}

# Codex's error kinds (`codex_error_info`) in the vocabulary the rules know (Claude Code's StopFailure codes).
_ERROR_CODES = {
    "usage_limit_exceeded": "rate_limit",
    "unauthorized": "authentication_failed",
    "server_overloaded": "overloaded",
    "internal_server_error": "server_error",
}
_CONNECTION_ERRORS = frozenset(
    {
        "http_connection_failed",
        "response_stream_connection_failed",
        "response_stream_disconnected",
        "response_too_many_failed_attempts",
    }
)
_STATUS_CODES = {401: "authentication_failed", 403: "authentication_failed", 402: "billing_error", 429: "rate_limit"}


def error_code(kind: str | None, status: int | None) -> str | None:
    """The error a failed Codex turn reports, as the rules name it; None for a turn that did not fail."""
    if kind is None:
        return None
    if kind in _ERROR_CODES:
        return _ERROR_CODES[kind]
    if status is not None:
        return _STATUS_CODES.get(status, "server_error" if status >= 500 else "other")
    return "connection_error" if kind in _CONNECTION_ERRORS else "other"


def hook_tool_name(name: str | None) -> str | None:
    """A rollout tool's name as the hooks report it, so both sources show the same activity."""
    name = tool_name(name)
    return _HOOK_NAMES.get(name, name) if name else name
