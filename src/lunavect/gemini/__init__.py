"""Gemini CLI, as lunavect reads it: its face, the one thing the rest of lunavect imports of this package.

Every member of `lunavect.faces.Face` is here: the collector's source (every session's chat file) and hook
mapping, the hooks installer (its settings.json), the screen and title readers and the conversation files;
Gemini CLI keeps no live catalog of its processes (its hooks name the process). The modules behind it are this
package's own: callers never import them. The collector's reader (its source) is imported when first asked
for; the rest is light and comes with the face.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lunavect.core.clients import GEMINI
from lunavect.gemini import install
from lunavect.gemini.conversation import conversation_at as conversation_at
from lunavect.gemini.conversation import find_conversation as find_conversation
from lunavect.gemini.hooks import evidence_from_record as evidence_from_record
from lunavect.gemini.install import describe_status as describe_status
from lunavect.gemini.layout import home as home
from lunavect.gemini.pane import read_dialog as read_dialog
from lunavect.gemini.pane import read_prompt as read_prompt
from lunavect.gemini.pane import read_title as read_title
from lunavect.install import outcome
from lunavect.install.command import Http

if TYPE_CHECKING:
    from lunavect.evidence.sources import Source

CLIENT = GEMINI
hooks_report = install.report


def new_source() -> Source:
    """Its chat files: every Gemini CLI session appears from them, hooks or not."""
    from lunavect.gemini.source import GeminiSource

    return GeminiSource()


# -- its hooks ---------------------------------------------------------------------------------------------


def hooks_status(*, http: Http | None = None, verify: bool = True) -> install.Status:
    """What settings.json says (Gemini CLI has no HTTP hooks, and nothing more to ask of it)."""
    return install.status()


def setup_lines(hooks: str) -> list[str]:
    if hooks == "installed":
        return [f"{CLIENT.name} hooks: installed. Gemini CLI sessions also appear from their chat files, hooks or not."]
    return [
        f"{CLIENT.name} hooks: {hooks}. Gemini CLI sessions still appear from their chat files;",
        "run `lunavect hooks install` for permission prompts and exact states.",
    ]


def install_hooks(*, http: Http | None = None) -> list[str]:
    """Install or repair its hooks in settings.json (the command shim: `http` is not Gemini CLI's)."""
    return outcome.install_lines(CLIENT.id, install.install, install.describe_install, install.SettingsError)


def uninstall_hooks() -> list[str]:
    return outcome.uninstall_lines(CLIENT.id, install.uninstall, install.settings_path(), install.SettingsError)
