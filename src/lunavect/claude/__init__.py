"""Claude Code, as lunavect reads it: its face, the one thing the rest of lunavect imports of this package.

Every member of `lunavect.faces.Face` is here (the collector's source and hook mapping, the hooks installer,
the live catalog, the screen readers, the conversation files), and the few things only Claude Code has: its
HTTP hooks (for the collector's listener) and its status line (`settings_path`). The modules behind it are
this package's own: callers never import them. The collector's readers (its source, its catalog and jobs) are
imported when first called, so importing the face costs little (a peek or `lunavect open` never loads them);
the rest is light and comes with the face.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lunavect import paths
from lunavect.claude import install
from lunavect.claude.conversation import conversation_at as conversation_at
from lunavect.claude.conversation import find_conversation as find_conversation
from lunavect.claude.http_hooks import HOOK_PATH as HOOK_PATH
from lunavect.claude.http_hooks import HTTP_EVENTS as HTTP_EVENTS
from lunavect.claude.http_hooks import SECRET_HEADER as SECRET_HEADER
from lunavect.claude.install import describe_status as describe_status
from lunavect.claude.install import settings_path as settings_path
from lunavect.claude.pane import read_dialog as read_dialog
from lunavect.claude.pane import read_prompt as read_prompt
from lunavect.core.clients import CLAUDE
from lunavect.evidence import spool_record
from lunavect.install import outcome
from lunavect.install.command import Http

if TYPE_CHECKING:
    from lunavect.claude.catalog import CatalogEntry
    from lunavect.claude.jobs import Job
    from lunavect.evidence.sources import Source
    from lunavect.host.processes import ProcessTable

CLIENT = CLAUDE
hooks_report = install.report
# Its hook records are of the shape every client's shim spools.
evidence_from_record = spool_record.evidence


def new_source() -> Source:
    """Its transcripts and live catalog, read without hooks (and for what hooks do not tell)."""
    from lunavect.claude.files_source import ClaudeFilesSource

    return ClaudeFilesSource()


def home() -> Path:
    return paths.claude_config_dir()


# -- its hooks (and in settings.json, `settings_path`, its status line) -------------------------------------


def hooks_status(*, http: Http | None = None, verify: bool = True) -> install.Status:
    """What settings.json says (`verify` asks nothing more of Claude Code)."""
    return install.status(http=http)


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
    shim. (A refusal names its settings.json, so it is not prefixed with the client's id.)"""
    with outcome.refusing("", install.SettingsError):
        changed = install.install(http=http)
    lines = [install.describe_install(changed)]
    if http is not None:
        lines.append(
            f"{CLIENT.id}: {', '.join(HTTP_EVENTS)} as HTTP hooks to 127.0.0.1:{http.port}; the other events run "
            "the command shim"
        )
    return lines


def uninstall_hooks() -> list[str]:
    with outcome.refusing("", install.SettingsError):
        changed = install.uninstall()
    return [outcome.removed(CLIENT.id, changed, settings_path())]


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
