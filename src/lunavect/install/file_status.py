"""What a client's hooks file says of lunavect's hooks, and how `hooks status --json` prints it.

Claude Code's and Gemini CLI's settings.json and Codex's hooks.json hold lunavect's entries in one shape
(`hooks_file.entries` reads them), so their status is one record here: a client adds only what is its own
(Claude Code's HTTP hooks, Codex's trust) as fields of its subclass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from lunavect.install.hooks_file import Entries


@dataclass
class FileStatus:
    """What the hooks file at `path` says of lunavect's hooks."""

    path: Path
    state: str  # installed | missing | partial | stale | unreadable (and what a client adds: untrusted)
    events: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    stale_commands: list[str] = field(default_factory=list)
    detail: str = ""

    @classmethod
    def of(cls, path: Path, found: Entries, **own: Any) -> Self:
        """The status of the file's entries as `hooks_file.entries` found them (`own`: the subclass's fields)."""
        return cls(path, found.state, found.events, found.missing, found.stale_commands, found.detail, **own)


def report(status: FileStatus, file_key: str) -> dict:
    """The status as `hooks status --json` prints it, the file under the key each client's report has always
    named it by (`settings`, `hooks`)."""
    return {
        "state": status.state,
        file_key: str(status.path),
        "missing_events": status.missing,
        "stale_commands": status.stale_commands,
        "detail": status.detail,
    }
