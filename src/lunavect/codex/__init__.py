"""Codex, as lunavect reads it: its face, the one thing the rest of lunavect imports of this package.

Every member of `lunavect.faces.Face` is here: the collector's source (rollouts, its thread catalog and
app-server) and hook mapping, the hooks installer (with Codex's own trust of them), the screen readers and the
conversation files; Codex keeps no live catalog of its processes. The modules behind it are this package's
own: callers never import them. What starts Codex's app-server (its source, its installer's trust) is imported
when first called; the rest is light and comes with the face.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lunavect import paths
from lunavect.codex.conversation import conversation_at as conversation_at
from lunavect.codex.conversation import find_conversation as find_conversation
from lunavect.codex.hooks import evidence_from_record as evidence_from_record
from lunavect.codex.pane import read_dialog as read_dialog
from lunavect.codex.pane import read_prompt as read_prompt
from lunavect.core.clients import CODEX
from lunavect.install import outcome
from lunavect.install.command import Http

if TYPE_CHECKING:
    from lunavect.codex.install import Status
    from lunavect.evidence.sources import Source

CLIENT = CODEX


def new_source() -> Source:
    """Its rollouts, thread catalog and app-server: every Codex session appears from them, hooks or not."""
    from lunavect.codex.source import CodexSource

    return CodexSource()


def home() -> Path:
    return paths.codex_home()


# -- its hooks ---------------------------------------------------------------------------------------------


def hooks_status(*, http: Http | None = None, verify: bool = True) -> Status:
    """What hooks.json says, and whether Codex trusts the hooks (`verify`: asked of its app-server; else read
    from its config). Codex has no HTTP hooks (`http` is not its)."""
    from lunavect.codex import install

    return install.status(verify=verify)


def hooks_report(status: Status) -> dict:
    from lunavect.codex import install

    return install.report(status)


def describe_status(status: Status) -> str:
    from lunavect.codex import install

    return install.describe_status(status)


def setup_lines(hooks: str) -> list[str]:
    if hooks == "installed":
        return [f"{CLIENT.name} hooks: installed. Codex sessions also appear from their rollouts, hooks or not."]
    if hooks == "untrusted":
        return [f"{CLIENT.name} hooks: installed but not trusted yet: trust them in Codex's `/hooks`."]
    return [f"{CLIENT.name} hooks: {hooks}. Codex sessions still appear from their rollouts."]


def install_hooks(*, http: Http | None = None) -> list[str]:
    """Install or repair its hooks in hooks.json and have Codex trust them (the command shim: `http` is not
    Codex's)."""
    from lunavect.codex import install

    return outcome.install_lines(CLIENT.id, install.install, install.describe_install, install.SettingsError)


def uninstall_hooks() -> list[str]:
    from lunavect.codex import install

    return outcome.uninstall_lines(CLIENT.id, install.uninstall, install.hooks_path(), install.SettingsError)
