"""Installing lunavect's hooks into Gemini CLI's settings.json, and taking them out again.

The file is the person's: `lunavect.install.hooks_file` edits it with care (their own hooks and every other
setting stay as they were, the write is atomic with a backup, an uninstall gives back their own bytes). What is
Gemini CLI's own lives here: where its settings are (`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`), which
events it sends, and that its hook timeouts are milliseconds. Gemini CLI reads the file as JSON with comments;
lunavect edits plain JSON only, so a file with comments is refused and left as it is.
"""

from __future__ import annotations

from pathlib import Path

from lunavect.clients.gemini.layout import settings_path
from lunavect.install import file_status
from lunavect.install.command import hook_command
from lunavect.install.file_status import FileStatus
from lunavect.install.hooks_file import (
    HOOK_TIMEOUT_S,
    HooksFileError,
    describe,
    entries,
    install_hooks,
    load_plain,
    uninstall_hooks,
)
from lunavect.install.outcome import installed

PROVIDER = "gemini"
# Every lifecycle event lunavect reads (tests/clients/NOTES.md); BeforeModel and AfterModel fire for every
# streamed chunk and say nothing more.
EVENTS = (
    "SessionStart",
    "BeforeAgent",
    "BeforeTool",
    "Notification",
    "AfterTool",
    "AfterAgent",
    "PreCompress",
    "SessionEnd",
)
# Gemini CLI's hook timeouts are in milliseconds.
TIMEOUTS = dict.fromkeys(EVENTS, HOOK_TIMEOUT_S * 1000)

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
    return install_hooks(path, hook_command(PROVIDER), EVENTS, timeouts=TIMEOUTS)


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
