"""Installing lunavect's hooks into Gemini CLI's settings.json, and taking them out again.

The file is the person's: `lunavect.install.hooks_file` edits it with care (their own hooks and every other
setting stay as they were, the write is atomic with a backup, an uninstall gives back their own bytes). What is
Gemini CLI's own lives here: where its settings are (`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`), which
events it sends, and that its hook timeouts are milliseconds. Gemini CLI reads the file as JSON with comments;
lunavect edits plain JSON only, so a file with comments is refused and left as it is.
"""

from __future__ import annotations

from lunavect.clients.gemini.layout import settings_path
from lunavect.install.file_status import FileStatus
from lunavect.install.hooks_file import HOOK_TIMEOUT_S, HooksFileError
from lunavect.install.settings_hooks import SettingsHooks

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

_HOOKS = SettingsHooks(PROVIDER, EVENTS, settings_path, TIMEOUTS)
status = _HOOKS.status
install = _HOOKS.install
uninstall = _HOOKS.uninstall
describe_install = _HOOKS.describe_install
describe_status = _HOOKS.describe_status
report = _HOOKS.report
