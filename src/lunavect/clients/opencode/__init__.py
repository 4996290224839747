"""OpenCode, as lunavect reads it: its face (`FACE`), the one thing the rest of lunavect imports of this package.

The collector's source (OpenCode's database, read-only) and the mapping of the records lunavect's OpenCode plugin
spools (OpenCode has no hook commands: its plugin, plugin.js, forwards its bus events), the plugin's installer,
the screen readers (which recognise nothing: lunavect types into no OpenCode screen) and the conversation, read
from the database. OpenCode keeps no live catalog of its processes: the plugin's records carry the process. The
collector's reader (its source) is imported when first asked for; the rest is light and comes with the face.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lunavect.clients import ModulesFace
from lunavect.clients.opencode import conversation, events, install, major, pane, places
from lunavect.core.clients import OPENCODE

if TYPE_CHECKING:
    from lunavect.evidence.sources import Source


class OpenCodeFace(ModulesFace[install.Status]):
    """Its "hooks" are lunavect's plugin file in OpenCode's plugin folder (OpenCode has no hook commands and no
    HTTP hooks lunavect uses)."""

    CLIENT = OPENCODE
    INSTALL = install
    HOOKS = events
    PANE = pane
    CONVERSATION = conversation
    REFUSED = install.PluginError

    def new_source(self) -> Source:
        """Its database: every OpenCode session appears from it, plugin or not."""
        from lunavect.clients.opencode.source import OpenCodeSource

        return OpenCodeSource()

    def home(self) -> Path:
        """Its data folder (its database among it), which only OpenCode itself makes: lunavect's plugin goes into
        its configuration folder, which `hooks install` makes on every machine."""
        return places.data_dir()

    def hooks_file(self) -> Path:
        return places.plugin_path()

    def hooks_report(self, status: install.Status) -> dict:
        database = places.database_path()
        return {"state": status.state, "plugin": str(status.path), "detail": status.detail, "database": str(database)}

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


FACE = OpenCodeFace()
