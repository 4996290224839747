"""OpenCode, as lunavect reads it: its face, the one thing the rest of lunavect imports of this package.

Every member of `lunavect.faces.Face` is here: the collector's source (OpenCode's database, read-only) and the
mapping of the records lunavect's OpenCode plugin spools (OpenCode has no hook commands: its plugin, plugin.js,
forwards its bus events), the plugin's installer, the screen readers (which recognise nothing: lunavect types
into no OpenCode screen) and the conversation, read from the database. OpenCode keeps no live catalog of its
processes: the plugin's records carry the process. Each member imports its module when first called, so
importing the face costs little.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lunavect.core.clients import OPENCODE
from lunavect.install.command import Http
from lunavect.install.hooks_file import HooksRefused
from lunavect.opencode.events import evidence_from_record
from lunavect.opencode.pane import read_dialog, read_prompt

if TYPE_CHECKING:
    import sqlite3

    from lunavect.conversation.source import Source as Conversation
    from lunavect.evidence.sources import Source
    from lunavect.opencode.install import Status

__all__ = [
    "CLIENT",
    "conversation_at",
    "describe_status",
    "evidence_from_record",
    "find_conversation",
    "home",
    "hooks_report",
    "hooks_status",
    "install_hooks",
    "read_dialog",
    "read_prompt",
    "setup_lines",
    "new_source",
    "uninstall_hooks",
]

CLIENT = OPENCODE


def new_source() -> Source:
    """Its database: every OpenCode session appears from it, plugin or not."""
    from lunavect.opencode.source import OpenCodeSource

    return OpenCodeSource()


def home() -> Path:
    """Its data folder (its database among it), which only OpenCode itself makes: lunavect's plugin goes into
    its configuration folder, which `hooks install` makes on every machine."""
    from lunavect.opencode import places

    return places.data_dir()


# -- its plugin (lunavect's "hooks" for OpenCode) --------------------------------------------------------


def hooks_status(*, http: Http | None = None, verify: bool = True) -> Status:
    """Whether lunavect's plugin file is there, as this installation writes it (`http` is not OpenCode's)."""
    from lunavect.opencode import install

    return install.status()


def hooks_report(status: Status) -> dict:
    from lunavect.opencode import places

    database = places.database_path()
    return {"state": status.state, "plugin": str(status.path), "detail": status.detail, "database": str(database)}


def describe_status(status: Status) -> str:
    from lunavect.opencode import install

    return install.describe(status)


def setup_lines(hooks: str) -> list[str]:
    if hooks == "installed":
        return [f"{CLIENT.name} plugin: installed. OpenCode sessions also appear from its database, plugin or not."]
    # Without it the database still lists them; their prompts, questions and retries need `hooks install`.
    return [f"{CLIENT.name} plugin: {hooks}. OpenCode sessions still appear from its database."]


def install_hooks(*, http: Http | None = None) -> list[str]:
    """Write lunavect's plugin into OpenCode's plugin folder (OpenCode loads it when it next starts)."""
    from lunavect.opencode import install

    try:
        changed = install.install()
    except (install.PluginError, OSError) as exc:
        raise HooksRefused(f"{CLIENT.id}: {exc}") from None
    path = install.status().path
    return [f"{CLIENT.id}: {'installed' if changed else 'already installed'} in {path} (loaded when OpenCode starts)"]


def uninstall_hooks() -> list[str]:
    from lunavect.opencode import install, places

    try:
        removed = install.uninstall()
    except (install.PluginError, OSError) as exc:
        raise HooksRefused(f"{CLIENT.id}: {exc}") from None
    return [f"{CLIENT.id}: {'removed' if removed else 'nothing to remove'} in {places.plugin_path()}"]


# -- read on demand ----------------------------------------------------------------------------------------


def find_conversation(session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
    from lunavect.opencode.conversation import find_conversation as find

    return find(session_id, conn)


def conversation_at(path: Path) -> Conversation:
    from lunavect.opencode.conversation import conversation_at as at

    return at(path)
