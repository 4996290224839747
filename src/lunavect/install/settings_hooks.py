"""lunavect's hooks in a client's own settings.json, as the command shim (Gemini CLI's and Qwen Code's kind): what
`hooks install|uninstall|status` does with such a file, once for every client that keeps its hooks so. The file is
the person's: `hooks_file` edits it with care, and a file with comments is refused before anything is written. The
client's installer names its provider, the events it sends, where its settings are and the unit of its timeouts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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


class SettingsHooks:
    """One client's hooks in its settings.json (`settings_path` is read at each call: it follows the
    environment)."""

    def __init__(
        self,
        provider: str,
        events: tuple[str, ...],
        settings_path: Callable[[], Path],
        timeouts: dict[str, int] | None = None,
    ) -> None:
        self.provider, self.events, self.settings_path, self.timeouts = provider, events, settings_path, timeouts

    def status(self, path: Path | None = None) -> FileStatus:
        path = path or self.settings_path()
        try:
            settings = load_plain(path)
        except HooksFileError as exc:
            return FileStatus(path, "unreadable", detail=str(exc))
        return FileStatus.of(path, entries(settings, self.events, hook_command(self.provider)))

    def install(self, path: Path | None = None) -> bool:
        """Install or repair lunavect's hooks; True when the file changed."""
        path = path or self.settings_path()
        load_plain(path)  # a file with comments is refused before anything is written
        return install_hooks(path, hook_command(self.provider), self.events, timeouts=self.timeouts)

    def uninstall(self, path: Path | None = None) -> bool:
        """Remove lunavect's hooks and nothing else; True when the file changed."""
        path = path or self.settings_path()
        if path.exists():
            load_plain(path)
        return uninstall_hooks(path)

    def describe_install(self, changed: bool, path: Path | None = None) -> str:
        return installed(self.provider, changed, path or self.settings_path())

    def describe_status(self, state: FileStatus) -> str:
        return describe(self.provider, state.state, state.path, state.detail, state.missing)

    def report(self, state: FileStatus) -> dict:
        return file_status.report(state, "settings")
