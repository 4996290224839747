"""Installing lunavect's hooks into Qwen Code's settings.json, and taking them out again.

The file is the person's: `lunavect.install.hooks_file` edits it with care (their own hooks and every other
setting stay as they were, the write is atomic with a backup, an uninstall gives back their own bytes). What is
Qwen Code's own lives here: where its settings are (`$QWEN_HOME`, else `~/.qwen`) and which events it sends, in
Claude Code's format (its timeouts are seconds). It reads the file as JSON with comments; lunavect edits plain
JSON only, so a file with comments is refused and left as it is.
"""

from __future__ import annotations

from lunavect.clients.qwen.layout import settings_path
from lunavect.core.clients import QWEN
from lunavect.install.file_status import FileStatus
from lunavect.install.hooks_file import HooksFileError
from lunavect.install.settings_hooks import SettingsHooks

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

_HOOKS = SettingsHooks(PROVIDER, EVENTS, settings_path)
status = _HOOKS.status
install = _HOOKS.install
uninstall = _HOOKS.uninstall
describe_install = _HOOKS.describe_install
describe_status = _HOOKS.describe_status
report = _HOOKS.report
