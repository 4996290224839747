"""Gemini CLI, as lunavect reads it: its face, the one thing the rest of lunavect imports of this package.

Every member of `lunavect.faces.Face` is here: the collector's source (every session's chat file) and hook
mapping, the hooks installer (its settings.json), the screen and title readers and the conversation files;
Gemini CLI keeps no live catalog of its processes (its hooks name the process). The modules behind it are this
package's own: callers never import them. Each member imports its module when first called, so importing the
face costs little.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lunavect.core.clients import GEMINI
from lunavect.gemini.hooks import evidence_from_record
from lunavect.gemini.layout import home
from lunavect.gemini.pane import read_dialog, read_prompt, read_title
from lunavect.install.command import Http
from lunavect.install.hooks_file import HooksRefused

if TYPE_CHECKING:
    import sqlite3

    from lunavect.conversation.source import Source as Conversation
    from lunavect.evidence.sources import Source
    from lunavect.gemini.install import Status

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
    "new_source",
    "read_dialog",
    "read_prompt",
    "read_title",
    "setup_lines",
    "uninstall_hooks",
]

CLIENT = GEMINI


def new_source() -> Source:
    """Its chat files: every Gemini CLI session appears from them, hooks or not."""
    from lunavect.gemini.source import GeminiSource

    return GeminiSource()


# -- its hooks ---------------------------------------------------------------------------------------------


def hooks_status(*, http: Http | None = None, verify: bool = True) -> Status:
    """What settings.json says (Gemini CLI has no HTTP hooks, and nothing more to ask of it)."""
    from lunavect.gemini import install

    return install.status()


def hooks_report(status: Status) -> dict:
    from lunavect.gemini import install

    return install.report(status)


def describe_status(status: Status) -> str:
    from lunavect.gemini import install

    return install.describe_status(status)


def setup_lines(hooks: str) -> list[str]:
    if hooks == "installed":
        return [f"{CLIENT.name} hooks: installed. Gemini CLI sessions also appear from their chat files, hooks or not."]
    return [
        f"{CLIENT.name} hooks: {hooks}. Gemini CLI sessions still appear from their chat files;",
        "run `lunavect hooks install` for permission prompts and exact states.",
    ]


def install_hooks(*, http: Http | None = None) -> list[str]:
    """Install or repair its hooks in settings.json (the command shim: `http` is not Gemini CLI's)."""
    from lunavect.gemini import install

    try:
        return [install.describe_install(install.install())]
    except (install.SettingsError, OSError) as exc:
        raise HooksRefused(f"{CLIENT.id}: {exc}") from None


def uninstall_hooks() -> list[str]:
    from lunavect.gemini import install

    try:
        removed = install.uninstall()
    except (install.SettingsError, OSError) as exc:
        raise HooksRefused(f"{CLIENT.id}: {exc}") from None
    return [f"{CLIENT.id}: {'removed' if removed else 'nothing to remove'} in {install.settings_path()}"]


# -- read on demand ----------------------------------------------------------------------------------------


def find_conversation(session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
    from lunavect.gemini.conversation import find_conversation as find

    return find(session_id, conn)


def conversation_at(path: Path) -> Conversation:
    from lunavect.gemini.conversation import conversation_at as at

    return at(path)
