"""OpenCode, as lunavect reads it: its face (`FACE`), the one thing the rest of lunavect imports of this package.

The collector's source (OpenCode's database, read-only) and the mapping of the records lunavect's OpenCode plugin
spools (OpenCode has no hook commands: its plugin, plugin.js, forwards its bus events), the plugin's installer,
the screen readers (which recognise nothing: lunavect types into no OpenCode screen) and the conversation, read
from the database. OpenCode keeps no live catalog of its processes: the plugin's records carry the process. The
collector's reader (its source) is imported when first asked for; the rest is light and comes with the face.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from lunavect.clients import Face
from lunavect.clients.opencode import conversation, events, install, major, pane, places
from lunavect.core.clients import OPENCODE
from lunavect.install import outcome
from lunavect.install.command import Http

if TYPE_CHECKING:
    from lunavect.conversation.source import Source as Conversation
    from lunavect.core.model import Evidence
    from lunavect.core.pane_reading import Dialog, PromptReading
    from lunavect.evidence.sources import Source
    from lunavect.evidence.spool_record import SpoolRecord


class OpenCodeFace(Face[install.Status]):
    CLIENT = OPENCODE

    def new_source(self) -> Source:
        """Its database: every OpenCode session appears from it, plugin or not."""
        from lunavect.clients.opencode.source import OpenCodeSource

        return OpenCodeSource()

    def evidence_from_record(self, record: SpoolRecord) -> Evidence | None:
        return events.evidence_from_record(record)

    def home(self) -> Path:
        """Its data folder (its database among it), which only OpenCode itself makes: lunavect's plugin goes into
        its configuration folder, which `hooks install` makes on every machine."""
        return places.data_dir()

    # -- its plugin (lunavect's "hooks" for OpenCode)

    def hooks_status(self, *, http: Http | None = None, verify: bool = True) -> install.Status:
        """Whether lunavect's plugin file is there, as this installation writes it (`http` is not OpenCode's)."""
        return install.status()

    def hooks_report(self, status: install.Status) -> dict:
        database = places.database_path()
        return {"state": status.state, "plugin": str(status.path), "detail": status.detail, "database": str(database)}

    def describe_status(self, status: install.Status) -> str:
        return install.describe_status(status)

    def setup_lines(self, hooks: str) -> list[str]:
        name = self.CLIENT.name
        if hooks == "installed":
            lines = [f"{name} plugin: installed. OpenCode sessions also appear from its database, plugin or not."]
        else:
            # Without it the database still lists them; their prompts, questions and retries need `hooks install`.
            lines = [f"{name} plugin: {hooks}. OpenCode sessions still appear from its database."]
        unread = major.unread()
        return [*lines, unread] if unread else lines

    def not_read(self) -> str | None:
        return major.unread()

    def install_hooks(self, *, http: Http | None = None) -> list[str]:
        """Write lunavect's plugin into OpenCode's plugin folder (OpenCode loads it when it next starts)."""
        return outcome.install_lines(self.CLIENT.id, install.install, install.describe_install, install.PluginError)

    def uninstall_hooks(self) -> list[str]:
        return outcome.uninstall_lines(self.CLIENT.id, install.uninstall, places.plugin_path(), install.PluginError)

    # -- read on demand

    def read_prompt(self, screen: str) -> PromptReading:
        return pane.read_prompt(screen)

    def read_dialog(self, screen: str) -> Dialog | None:
        return pane.read_dialog(screen)

    def find_conversation(self, session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
        return conversation.find_conversation(session_id, conn)

    def conversation_at(self, path: Path) -> Conversation:
        return conversation.conversation_at(path)


FACE = OpenCodeFace()
