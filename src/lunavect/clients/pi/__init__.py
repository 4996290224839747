"""Pi, as lunavect reads it: its face (`FACE`), the one thing the rest of lunavect imports of this package.

The collector's source (every session's file) and the mapping of the records lunavect's Pi extension spools (Pi
has no hook commands: its extension, extension.ts, forwards its agent's events), the extension's installer, the
screen readers (which recognise nothing: lunavect types into no Pi screen) and the conversation, read from the
session files. Pi keeps no live catalog of its processes: the extension's records carry the process. The
collector's reader (its source) is imported when first asked for; the rest is light and comes with the face.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lunavect.clients import ModulesFace
from lunavect.clients.pi import conversation, events, install, pane, places
from lunavect.core.clients import PI

if TYPE_CHECKING:
    from lunavect.evidence.sources import Source


class PiFace(ModulesFace[install.Status]):
    """Its "hooks" are lunavect's extension, a file in Pi's extensions folder that Pi loads when it next starts."""

    CLIENT = PI
    INSTALL = install
    HOOKS = events
    PANE = pane
    CONVERSATION = conversation
    REFUSED = install.ExtensionError

    def new_source(self) -> Source:
        """Its session files: every Pi session appears from them, extension or not."""
        from lunavect.clients.pi.source import PiSource

        return PiSource()

    def home(self) -> Path:
        return places.agent_dir()

    def hooks_file(self) -> Path:
        return places.extension_path()

    def hooks_report(self, status: install.Status) -> dict:
        return {
            "state": status.state,
            "extension": str(status.path),
            "detail": status.detail,
            "sessions": str(places.sessions_dir()),
        }

    def setup_lines(self, hooks: str) -> list[str]:
        name = self.CLIENT.name
        if hooks == "installed":
            return [f"{name} extension: installed. Pi sessions also appear from their session files, extension or not."]
        return [
            f"{name} extension: {hooks}. Pi sessions still appear from their session files;",
            "run `lunavect hooks install` for exact states while they run.",
        ]


FACE = PiFace()
