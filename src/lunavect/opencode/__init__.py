"""OpenCode, as lunavect reads it: its face, the one thing the rest of lunavect imports of this package.

Every member of `lunavect.faces.Face` is here: the collector's source (OpenCode's database, read-only) and the
mapping of the records lunavect's OpenCode plugin spools (OpenCode has no hook commands: its plugin, plugin.js,
forwards its bus events), the plugin's installer, the screen readers (which recognise nothing: lunavect types
into no OpenCode screen) and the conversation, read from the database. OpenCode keeps no live catalog of its
processes: the plugin's records carry the process. The collector's reader (its source) is imported when first
asked for; the rest is light and comes with the face.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lunavect.core.clients import OPENCODE
from lunavect.install import outcome
from lunavect.install.command import Http
from lunavect.opencode import install, places
from lunavect.opencode.conversation import conversation_at as conversation_at
from lunavect.opencode.conversation import find_conversation as find_conversation
from lunavect.opencode.events import evidence_from_record as evidence_from_record
from lunavect.opencode.install import describe_status as describe_status
from lunavect.opencode.pane import read_dialog as read_dialog
from lunavect.opencode.pane import read_prompt as read_prompt

if TYPE_CHECKING:
    from pathlib import Path

    from lunavect.evidence.sources import Source

CLIENT = OPENCODE


def new_source() -> Source:
    """Its database: every OpenCode session appears from it, plugin or not."""
    from lunavect.opencode.source import OpenCodeSource

    return OpenCodeSource()


def home() -> Path:
    """Its data folder (its database among it), which only OpenCode itself makes: lunavect's plugin goes into
    its configuration folder, which `hooks install` makes on every machine."""
    return places.data_dir()


# -- its plugin (lunavect's "hooks" for OpenCode) --------------------------------------------------------


def hooks_status(*, http: Http | None = None, verify: bool = True) -> install.Status:
    """Whether lunavect's plugin file is there, as this installation writes it (`http` is not OpenCode's)."""
    return install.status()


def hooks_report(status: install.Status) -> dict:
    database = places.database_path()
    return {"state": status.state, "plugin": str(status.path), "detail": status.detail, "database": str(database)}


def setup_lines(hooks: str) -> list[str]:
    if hooks == "installed":
        return [f"{CLIENT.name} plugin: installed. OpenCode sessions also appear from its database, plugin or not."]
    # Without it the database still lists them; their prompts, questions and retries need `hooks install`.
    return [f"{CLIENT.name} plugin: {hooks}. OpenCode sessions still appear from its database."]


def install_hooks(*, http: Http | None = None) -> list[str]:
    """Write lunavect's plugin into OpenCode's plugin folder (OpenCode loads it when it next starts)."""
    return outcome.install_lines(CLIENT.id, install.install, install.describe_install, install.PluginError)


def uninstall_hooks() -> list[str]:
    return outcome.uninstall_lines(CLIENT.id, install.uninstall, places.plugin_path(), install.PluginError)
