"""Claude Code, as lunavect reads it: its face, the one thing the rest of lunavect imports of this package.

Every member of `lunavect.faces.Face` is here (the collector's source and hook mapping, the hooks installer,
the live catalog, the screen readers, the conversation files), and the few things only Claude Code has: its
HTTP hooks (for the collector's listener) and its status line (`settings_path`). The modules behind it are
this package's own: callers never import them. Each member imports its module when first called, so importing
the face costs little (a peek or `lunavect open` never loads the collector's readers).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lunavect import paths
from lunavect.claude.http_hooks import HOOK_PATH, HTTP_EVENTS, SECRET_HEADER
from lunavect.claude.pane import read_dialog, read_prompt
from lunavect.core.clients import CLAUDE
from lunavect.evidence.spool_record import evidence as evidence_from_record
from lunavect.install.command import Http
from lunavect.install.hooks_file import HooksRefused

if TYPE_CHECKING:
    import sqlite3

    from lunavect.claude.catalog import CatalogEntry
    from lunavect.claude.install import Status
    from lunavect.claude.jobs import Job
    from lunavect.conversation.source import Source as Conversation
    from lunavect.evidence.sources import Source
    from lunavect.host.processes import ProcessTable

__all__ = [
    "CLIENT",
    "HOOK_PATH",
    "HTTP_EVENTS",
    "SECRET_HEADER",
    "background_job",
    "conversation_at",
    "describe_status",
    "evidence_from_record",
    "find_conversation",
    "home",
    "hooks_report",
    "hooks_status",
    "install_hooks",
    "live_catalog",
    "process_facts",
    "read_dialog",
    "read_prompt",
    "settings_path",
    "setup_lines",
    "new_source",
    "uninstall_hooks",
]

CLIENT = CLAUDE


def new_source() -> Source:
    """Its transcripts and live catalog, read without hooks (and for what hooks do not tell)."""
    from lunavect.claude.files_source import ClaudeFilesSource

    return ClaudeFilesSource()


def home() -> Path:
    return paths.claude_config_dir()


def settings_path() -> Path:
    """Its settings.json, which holds the hooks and the status line."""
    from lunavect.claude import install

    return install.settings_path()


# -- its hooks ---------------------------------------------------------------------------------------------


def hooks_status(*, http: Http | None = None, verify: bool = True) -> Status:
    """What settings.json says (`verify` asks nothing more of Claude Code)."""
    from lunavect.claude import install

    return install.status(http=http)


def hooks_report(status: Status) -> dict:
    return {
        "state": status.state,
        "settings": str(status.path),
        "missing_events": status.missing,
        "stale_commands": status.stale_commands,
        "detail": status.detail,
        "http_events": status.http_events,
    }


def describe_status(status: Status) -> str:
    from lunavect.claude import install

    return install.describe_status(status)


def setup_lines(hooks: str) -> list[str]:
    if hooks == "installed":
        return [
            f"{CLIENT.name} hooks: installed.",
            f"Start or continue a session in `{CLIENT.command}`; it appears here as soon as it works.",
        ]
    return [
        f"{CLIENT.name} hooks: {hooks}.",
        f"Run `lunavect hooks install`, then start or continue a session in `{CLIENT.command}`.",
    ]


def install_hooks(*, http: Http | None = None) -> list[str]:
    """With `http`, the events of `HTTP_EVENTS` go to the collector's listener and the rest keep the command
    shim."""
    from lunavect.claude import install

    try:
        changed = install.install(http=http)
    except (install.SettingsError, OSError) as exc:
        raise HooksRefused(str(exc)) from None
    lines = [install.describe_install(changed)]
    if http is not None:
        lines.append(
            f"{CLIENT.id}: {', '.join(HTTP_EVENTS)} as HTTP hooks to 127.0.0.1:{http.port}; the other events run "
            "the command shim"
        )
    return lines


def uninstall_hooks() -> list[str]:
    from lunavect.claude import install

    try:
        changed = install.uninstall()
    except (install.SettingsError, OSError) as exc:
        raise HooksRefused(str(exc)) from None
    return [f"{CLIENT.id}: {'removed' if changed else 'nothing to remove'} in {settings_path()}"]


# -- read on demand ----------------------------------------------------------------------------------------


def live_catalog() -> Sequence[CatalogEntry]:
    """Its live catalog now (`sessions/<pid>.json`): the pid, start and tmux pane of each running session."""
    from lunavect.claude.catalog import read_catalog

    entries, _unusable = read_catalog(home())
    return entries


def background_job(session_id: str, table: ProcessTable) -> Job | None:
    """A session it runs in the background (`claude --bg`): its job, from its live catalog entry (`"kind": "bg"`,
    `"jobId"`) or, once stopped, its jobs folder (`jobs/<job id>/state.json`)."""
    from lunavect.claude.jobs import background_job as job

    return job(session_id, home(), table)


def process_facts(session_id: str) -> dict | None:
    """The process of a session its live catalog names, as the shim's spool line writes it (for an HTTP hook's
    event, which names none)."""
    from lunavect.claude.live_process import process_facts as facts

    return facts(session_id, home())


def find_conversation(session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
    from lunavect.claude.conversation import find_conversation as find

    return find(session_id, conn)


def conversation_at(path: Path) -> Conversation:
    from lunavect.claude.conversation import conversation_at as at

    return at(path)
