"""Claude Code, as lunavect reads it: its face (`FACE`), the one thing the rest of lunavect imports of this package.

The face holds the collector's source and hook mapping, the hooks installer, the live catalog, the screen readers
and the conversation files; beside it stand the few things only Claude Code has: its HTTP hooks (for the
collector's listener: `HOOK_PATH`, `HTTP_EVENTS`, `SECRET_HEADER`, `process_facts`) and its status line
(`settings_path`). The modules behind them are this package's own: callers never import them. The collector's
readers (its source, its catalog and jobs) are imported when first called, so importing the face costs little
(a peek or `lunavect open` never loads them); the rest is light and comes with the face.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lunavect import paths
from lunavect.clients import Face
from lunavect.clients.claude import conversation, install, pane
from lunavect.clients.claude.http_hooks import HOOK_PATH as HOOK_PATH
from lunavect.clients.claude.http_hooks import HTTP_EVENTS as HTTP_EVENTS
from lunavect.clients.claude.http_hooks import SECRET_HEADER as SECRET_HEADER
from lunavect.clients.claude.install import settings_path as settings_path
from lunavect.core.clients import CLAUDE
from lunavect.install import outcome
from lunavect.install.command import Http

if TYPE_CHECKING:
    from lunavect.clients.claude.catalog import CatalogEntry
    from lunavect.clients.claude.jobs import Job
    from lunavect.conversation.source import Source as Conversation
    from lunavect.core.pane_reading import Dialog, PromptReading
    from lunavect.evidence.sources import Source
    from lunavect.host.processes import ProcessTable


def home() -> Path:
    return paths.claude_config_dir()


class ClaudeFace(Face[install.Status]):
    """Its hook records are of the shape every client's shim spools (the base's `evidence_from_record`)."""

    CLIENT = CLAUDE

    def new_source(self) -> Source:
        """Its transcripts and live catalog, read without hooks (and for what hooks do not tell)."""
        from lunavect.clients.claude.files_source import ClaudeFilesSource

        return ClaudeFilesSource()

    def home(self) -> Path:
        return home()

    # -- its hooks (and in settings.json, `settings_path`, its status line)

    def hooks_status(self, *, http: Http | None = None, verify: bool = True) -> install.Status:
        """What settings.json says (`verify` asks nothing more of Claude Code)."""
        return install.status(http=http)

    def hooks_report(self, status: install.Status) -> dict:
        return install.report(status)

    def describe_status(self, status: install.Status) -> str:
        return install.describe_status(status)

    def setup_lines(self, hooks: str) -> list[str]:
        name, command = self.CLIENT.name, self.CLIENT.cli.command
        if hooks == "installed":
            return [
                f"{name} hooks: installed.",
                f"Start or continue a session in `{command}`; it appears here as soon as it works.",
            ]
        return [
            f"{name} hooks: {hooks}.",
            f"Run `lunavect hooks install`, then start or continue a session in `{command}`.",
        ]

    def install_hooks(self, *, http: Http | None = None) -> list[str]:
        """With `http`, the events of `HTTP_EVENTS` go to the collector's listener and the rest keep the command
        shim. (A refusal names its settings.json, so it is not prefixed with the client's id.)"""
        with outcome.refusing("", install.SettingsError):
            changed = install.install(http=http)
        lines = [install.describe_install(changed)]
        if http is not None:
            lines.append(
                f"{self.CLIENT.id}: {', '.join(HTTP_EVENTS)} as HTTP hooks to 127.0.0.1:{http.port}; the other "
                "events run the command shim"
            )
        return lines

    def uninstall_hooks(self) -> list[str]:
        with outcome.refusing("", install.SettingsError):
            changed = install.uninstall()
        return [outcome.removed(self.CLIENT.id, changed, settings_path())]

    # -- read on demand

    def live_catalog(self) -> Sequence[CatalogEntry]:
        """Its live catalog now (`sessions/<pid>.json`): the pid, start and tmux pane of each running session."""
        from lunavect.clients.claude.catalog import read_catalog

        entries, _unusable = read_catalog(home())
        return entries

    def background_job(self, session_id: str, table: ProcessTable) -> Job | None:
        """A session it runs in the background (`claude --bg`): its job, from its live catalog entry (`"kind":
        "bg"`, `"jobId"`) or, once stopped, its jobs folder (`jobs/<job id>/state.json`)."""
        from lunavect.clients.claude.jobs import background_job as job

        return job(session_id, home(), table)

    def read_prompt(self, screen: str) -> PromptReading:
        return pane.read_prompt(screen)

    def read_dialog(self, screen: str) -> Dialog | None:
        return pane.read_dialog(screen)

    def offers_resend(self, screen: str) -> bool:
        return pane.offers_resend(screen)

    def find_conversation(self, session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
        return conversation.find_conversation(session_id, conn)

    def conversation_at(self, path: Path) -> Conversation:
        return conversation.conversation_at(path)


FACE = ClaudeFace()


def process_facts(session_id: str) -> dict | None:
    """The process of a session its live catalog names, as the shim's spool line writes it (for an HTTP hook's
    event, which names none)."""
    from lunavect.clients.claude.live_process import process_facts as facts

    return facts(session_id, home())
