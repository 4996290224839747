"""Installing lunavect's hooks into Qwen Code's settings.json, and taking them out again.

The file is the person's: `lunavect.install.hooks_file` edits it with care (their own hooks and every other
setting stay as they were, the write is atomic with a backup, an uninstall gives back their own bytes). What is
Qwen Code's own lives here: where its settings are (`$QWEN_HOME`, else `~/.qwen`) and which events it sends, in
Claude Code's format (its timeouts are seconds). It reads the file as JSON with comments; lunavect edits plain
JSON only, so a file with comments is refused and left as it is.
"""

from __future__ import annotations

from pathlib import Path

from lunavect.clients.qwen.layout import settings_path
from lunavect.core.clients import QWEN
from lunavect.install import file_status
from lunavect.install.command import hook_command
from lunavect.install.file_status import FileStatus
from lunavect.install.hooks_file import (
    HooksFileError,
    describe,
    entries,
    install_hooks,
    load_plain,
    uninstall_hooks,
)
from lunavect.install.outcome import installed

PROVIDER = QWEN.id
# Every lifecycle event lunavect reads (tests/clients/NOTES.md); MessageDisplay fires for every streamed chunk
# (with the reply's text) and PostToolBatch, InstructionsLoaded and the todo events say nothing more.
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PermissionRequest",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
)

SettingsError = HooksFileError

# Nothing of its own to add to what its settings.json says.
Status = FileStatus


def status(path: Path | None = None) -> Status:
    path = path or settings_path()
    try:
        settings = load_plain(path)
    except HooksFileError as exc:
        return Status(path, "unreadable", detail=str(exc))
    return Status.of(path, entries(settings, EVENTS, hook_command(PROVIDER)))


def install(path: Path | None = None) -> bool:
    """Install or repair lunavect's hooks; True when the file changed."""
    path = path or settings_path()
    load_plain(path)  # a file with comments is refused before anything is written
    return install_hooks(path, hook_command(PROVIDER), EVENTS)


def uninstall(path: Path | None = None) -> bool:
    """Remove lunavect's hooks and nothing else; True when the file changed."""
    path = path or settings_path()
    if path.exists():
        load_plain(path)
    return uninstall_hooks(path)


def describe_install(changed: bool, path: Path | None = None) -> str:
    return installed(PROVIDER, changed, path or settings_path())


def describe_status(state: Status) -> str:
    return describe(PROVIDER, state.state, state.path, state.detail, state.missing)


def report(state: Status) -> dict:
    return file_status.report(state, "settings")
