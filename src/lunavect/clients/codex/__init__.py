"""Codex, as lunavect reads it: its face (`FACE`), the one thing the rest of lunavect imports of this package.

The collector's source (rollouts, its thread catalog and app-server) and hook mapping, the hooks installer (with
Codex's own trust of them), the screen readers and the conversation files; Codex keeps no live catalog of its
processes. The modules behind it are this package's own: callers never import them. What starts Codex's
app-server (its source, its installer's trust) is imported when first called; the rest is light and comes with
the face.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from lunavect import paths
from lunavect.clients import Face
from lunavect.clients.codex import conversation, hooks, pane
from lunavect.core.clients import CODEX
from lunavect.install import outcome
from lunavect.install.command import Http

if TYPE_CHECKING:
    from lunavect.clients.codex.install import Status
    from lunavect.conversation.source import Source as Conversation
    from lunavect.core.model import Evidence
    from lunavect.core.pane_reading import Dialog, PromptReading
    from lunavect.evidence.sources import Source
    from lunavect.evidence.spool_record import SpoolRecord


class CodexFace(Face["Status"]):
    CLIENT = CODEX

    def new_source(self) -> Source:
        """Its rollouts, thread catalog and app-server: every Codex session appears from them, hooks or not."""
        from lunavect.clients.codex.source import CodexSource

        return CodexSource()

    def evidence_from_record(self, record: SpoolRecord) -> Evidence | None:
        return hooks.evidence_from_record(record)

    def home(self) -> Path:
        return paths.codex_home()

    # -- its hooks

    def hooks_status(self, *, http: Http | None = None, verify: bool = True) -> Status:
        """What hooks.json says, and whether Codex trusts the hooks (`verify`: asked of its app-server; else read
        from its config). Codex has no HTTP hooks (`http` is not its)."""
        from lunavect.clients.codex import install

        return install.status(verify=verify)

    def hooks_report(self, status: Status) -> dict:
        from lunavect.clients.codex import install

        return install.report(status)

    def describe_status(self, status: Status) -> str:
        from lunavect.clients.codex import install

        return install.describe_status(status)

    def setup_lines(self, hooks: str) -> list[str]:
        name = self.CLIENT.name
        if hooks == "installed":
            return [f"{name} hooks: installed. Codex sessions also appear from their rollouts, hooks or not."]
        if hooks == "untrusted":
            return [f"{name} hooks: installed but not trusted yet: trust them in Codex's `/hooks`."]
        return [f"{name} hooks: {hooks}. Codex sessions still appear from their rollouts."]

    def install_hooks(self, *, http: Http | None = None) -> list[str]:
        """Install or repair its hooks in hooks.json and have Codex trust them (the command shim: `http` is not
        Codex's)."""
        from lunavect.clients.codex import install

        return outcome.install_lines(self.CLIENT.id, install.install, install.describe_install, install.SettingsError)

    def uninstall_hooks(self) -> list[str]:
        from lunavect.clients.codex import install

        return outcome.uninstall_lines(self.CLIENT.id, install.uninstall, install.hooks_path(), install.SettingsError)

    # -- read on demand

    def read_prompt(self, screen: str) -> PromptReading:
        return pane.read_prompt(screen)

    def read_dialog(self, screen: str) -> Dialog | None:
        return pane.read_dialog(screen)

    def find_conversation(self, session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
        return conversation.find_conversation(session_id, conn)

    def conversation_at(self, path: Path) -> Conversation:
        return conversation.conversation_at(path)


FACE = CodexFace()
