"""Qwen Code, as lunavect reads it: its face (`FACE`), the one thing the rest of lunavect imports of this package.

The collector's source (every session's chat file) and hook mapping, the hooks installer (its settings.json), the
screen and title readers and the conversation files. Its hooks name the process (the session's node process
is their parent). The modules behind it are this package's own: callers never import them. The collector's
reader (its source) is imported when first asked for; the rest is light and comes with the face.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from lunavect.clients import Face
from lunavect.clients.qwen import conversation, hooks, install, layout, pane
from lunavect.core.clients import QWEN
from lunavect.install import outcome
from lunavect.install.command import Http

if TYPE_CHECKING:
    from lunavect.conversation.source import Source as Conversation
    from lunavect.core.model import Evidence
    from lunavect.core.pane_reading import Dialog, PromptReading
    from lunavect.evidence.sources import Source
    from lunavect.evidence.spool_record import SpoolRecord


class QwenFace(Face[install.Status]):
    CLIENT = QWEN

    def new_source(self) -> Source:
        """Its chat files: every Qwen Code session appears from them, hooks or not."""
        from lunavect.clients.qwen.source import QwenSource

        return QwenSource()

    def evidence_from_record(self, record: SpoolRecord) -> Evidence | None:
        return hooks.evidence_from_record(record)

    def home(self) -> Path:
        return layout.home()

    # -- its hooks

    def hooks_status(self, *, http: Http | None = None, verify: bool = True) -> install.Status:
        """What settings.json says (lunavect uses no HTTP hooks of Qwen Code's, and has nothing more to ask)."""
        return install.status()

    def hooks_report(self, status: install.Status) -> dict:
        return install.report(status)

    def describe_status(self, status: install.Status) -> str:
        return install.describe_status(status)

    def setup_lines(self, hooks: str) -> list[str]:
        name = self.CLIENT.name
        if hooks == "installed":
            return [f"{name} hooks: installed. Its sessions also appear from their chat files, hooks or not."]
        return [
            f"{name} hooks: {hooks}. Its sessions still appear from their chat files;",
            "run `lunavect hooks install` for permission prompts, questions and exact states.",
        ]

    def install_hooks(self, *, http: Http | None = None) -> list[str]:
        """Install or repair its hooks in settings.json (the command shim: `http` is not Qwen Code's)."""
        return outcome.install_lines(self.CLIENT.id, install.install, install.describe_install, install.SettingsError)

    def uninstall_hooks(self) -> list[str]:
        return outcome.uninstall_lines(
            self.CLIENT.id, install.uninstall, install.settings_path(), install.SettingsError
        )

    # -- read on demand

    def read_prompt(self, screen: str) -> PromptReading:
        return pane.read_prompt(screen)

    def read_dialog(self, screen: str) -> Dialog | None:
        return pane.read_dialog(screen)

    def read_title(self, title: str) -> str | None:
        return pane.read_title(title)

    def find_conversation(self, session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
        return conversation.find_conversation(session_id, conn)

    def conversation_at(self, path: Path) -> Conversation:
        return conversation.conversation_at(path)


FACE = QwenFace()
