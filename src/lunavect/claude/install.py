"""Installing lunavect's hooks into Claude Code's settings.json, and taking them out again.

The file is the person's: `lunavect.install.hooks_file` edits it with care (their own hooks and every
other setting stay as they were, a malformed file is refused and left untouched, the write is atomic with a
backup). What is Claude Code's own lives here: where its settings are and which events it sends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lunavect import paths
from lunavect.install.command import hook_command
from lunavect.install.hooks_file import HooksFileError, describe, entries, install_hooks, is_ours, load, uninstall_hooks

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

__all__ = [
    "EVENTS",
    "SettingsError",
    "Status",
    "hook_command",
    "install",
    "is_ours",
    "settings_path",
    "status",
    "uninstall",
]


def settings_path() -> Path:
    return paths.claude_config_dir() / "settings.json"


@dataclass
class Status:
    """What settings.json says of lunavect's hooks."""

    path: Path
    state: str  # installed | missing | partial | stale | unreadable
    events: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    stale_commands: list[str] = field(default_factory=list)
    detail: str = ""


def status(path: Path | None = None) -> Status:
    path = path or settings_path()
    try:
        settings = load(path)
    except HooksFileError as exc:
        return Status(path, "unreadable", detail=str(exc))
    found = entries(settings, EVENTS, hook_command())
    return Status(path, found.state, found.events, found.missing, found.stale_commands, found.detail)


def install(path: Path | None = None) -> bool:
    """Install or repair lunavect's hooks; True when the file changed."""
    return install_hooks(path or settings_path(), hook_command(), EVENTS)


def uninstall(path: Path | None = None) -> bool:
    """Remove lunavect's hooks and nothing else; True when the file changed."""
    return uninstall_hooks(path or settings_path())


def describe_install(changed: bool, path: Path | None = None) -> str:
    return f"claude: {'installed' if changed else 'already installed'} in {path or settings_path()}"


def describe_status(state: Status) -> str:
    return describe("claude", state.state, state.path, state.detail, state.missing)
