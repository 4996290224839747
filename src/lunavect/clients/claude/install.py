"""Installing lunavect's hooks into Claude Code's settings.json, and taking them out again.

The file is the person's: `lunavect.install.hooks_file` edits it with care (their own hooks and every
other setting stay as they were, a malformed file is refused and left untouched, the write is atomic with a
backup). What is Claude Code's own lives here: where its settings are and which events it sends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lunavect import paths
from lunavect.clients.claude import http_hooks
from lunavect.install import file_status
from lunavect.install.command import Http, hook_command
from lunavect.install.file_status import FileStatus
from lunavect.install.hooks_file import HooksFileError, describe, entries, install_hooks, is_ours, load, uninstall_hooks
from lunavect.install.outcome import installed

# Every lifecycle event lunavect reads (FACTS.md, research/claude-formats.md §1.1).
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "StopFailure",
    "PreCompact",
    "PostCompact",
    "Elicitation",
    "ElicitationResult",
    "SessionEnd",
)

SettingsError = HooksFileError


def settings_path() -> Path:
    """Its settings.json, which holds the hooks and the status line."""
    return paths.claude_config_dir() / "settings.json"


@dataclass
class Status(FileStatus):
    """What settings.json says of lunavect's hooks."""

    # The events whose lunavect handler is an HTTP hook (the rest run the command shim).
    http_events: list[str] = field(default_factory=list)


def status(path: Path | None = None, http: Http | None = None) -> Status:
    """What the settings hold, checked against what `install(http=...)` would write (`http=None`: the
    command shim for every event)."""
    path = path or settings_path()
    try:
        settings = load(path)
    except HooksFileError as exc:
        return Status(path, "unreadable", detail=str(exc))
    expected = http_hooks.handlers(http.port, http.secret) if http is not None else None
    found = entries(settings, EVENTS, hook_command(), expected)
    return Status.of(path, found, http_events=_http_events(settings))


def _http_events(settings: dict) -> list[str]:
    hooks = settings.get("hooks", {})
    return [
        event
        for event in EVENTS
        for group in hooks.get(event, [])
        if isinstance(group, dict)
        for handler in group.get("hooks", []) or []
        if is_ours(handler) and handler.get("type") == "http"
    ]


def install(path: Path | None = None, http: Http | None = None) -> bool:
    """Install or repair lunavect's hooks; True when the file changed. With `http`, the events of
    `http_hooks.HTTP_EVENTS` go to the collector's listener and the rest keep the command shim; the file then
    holds the listener's secret, so it is made readable by its owner only."""
    handlers = http_hooks.handlers(http.port, http.secret) if http is not None else None
    return install_hooks(
        path or settings_path(),
        hook_command(),
        EVENTS,
        handlers=handlers,
        also=http_hooks.allowing(http.port if http is not None else None),
        private=http is not None,
    )


def uninstall(path: Path | None = None) -> bool:
    """Remove lunavect's hooks (and its URL from the person's HTTP allow-list) and nothing else; True when the
    file changed."""
    return uninstall_hooks(path or settings_path(), also=http_hooks.allowing(None))


def describe_install(changed: bool, path: Path | None = None) -> str:
    return installed("claude", changed, path or settings_path())


def describe_status(state: Status) -> str:
    return describe("claude", state.state, state.path, state.detail, state.missing)


def report(state: Status) -> dict:
    return {**file_status.report(state, "settings"), "http_events": state.http_events}
