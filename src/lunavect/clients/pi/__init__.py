"""Pi, as lunavect reads it: its face (`FACE`), the one thing the rest of lunavect imports of this package.

The collector's source (every session's file) and the mapping of the records lunavect's Pi extension spools (Pi
has no hook commands: its extension, extension.ts, forwards its agent's events), the extension's installer, the
screen readers (which recognise nothing: lunavect types into no Pi screen) and the conversation, read from the
session files. Pi keeps no live catalog of its processes: the extension's records carry the process. The
collector's reader (its source) is imported when first asked for; the rest is light and comes with the face.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from lunavect.clients import Face
from lunavect.clients.pi import conversation, events, install, pane, places
from lunavect.core.clients import PI
from lunavect.install import outcome
from lunavect.install.command import Http

if TYPE_CHECKING:
    from lunavect.conversation.source import Source as Conversation
    from lunavect.core.model import Evidence
    from lunavect.core.pane_reading import Dialog, PromptReading
    from lunavect.evidence.sources import Source
    from lunavect.evidence.spool_record import SpoolRecord


class PiFace(Face[install.Status]):
    CLIENT = PI

    def new_source(self) -> Source:
        """Its session files: every Pi session appears from them, extension or not."""
        from lunavect.clients.pi.source import PiSource

        return PiSource()

    def evidence_from_record(self, record: SpoolRecord) -> Evidence | None:
        return events.evidence_from_record(record)

    def home(self) -> Path:
        return places.agent_dir()

    # -- its extension (lunavect's "hooks" for Pi)

    def hooks_status(self, *, http: Http | None = None, verify: bool = True) -> install.Status:
        """Whether lunavect's extension file is there, as this installation writes it (`http` is not Pi's)."""
        return install.status()

    def hooks_report(self, status: install.Status) -> dict:
        return {
            "state": status.state,
            "extension": str(status.path),
            "detail": status.detail,
            "sessions": str(places.sessions_dir()),
        }

    def describe_status(self, status: install.Status) -> str:
        return install.describe_status(status)

    def setup_lines(self, hooks: str) -> list[str]:
        name = self.CLIENT.name
        if hooks == "installed":
            return [f"{name} extension: installed. Pi sessions also appear from their session files, extension or not."]
        return [
            f"{name} extension: {hooks}. Pi sessions still appear from their session files;",
            "run `lunavect hooks install` for exact states while they run.",
        ]

    def install_hooks(self, *, http: Http | None = None) -> list[str]:
        """Write lunavect's extension into Pi's extensions folder (Pi loads it when it next starts)."""
        return outcome.install_lines(self.CLIENT.id, install.install, install.describe_install, install.ExtensionError)

    def uninstall_hooks(self) -> list[str]:
        return outcome.uninstall_lines(
            self.CLIENT.id, install.uninstall, places.extension_path(), install.ExtensionError
        )

    # -- read on demand

    def read_prompt(self, screen: str) -> PromptReading:
        return pane.read_prompt(screen)

    def read_dialog(self, screen: str) -> Dialog | None:
        return pane.read_dialog(screen)

    def find_conversation(self, session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
        return conversation.find_conversation(session_id, conn)

    def conversation_at(self, path: Path) -> Conversation:
        return conversation.conversation_at(path)


FACE = PiFace()
