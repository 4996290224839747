"""The command that resumes a session, as a person types it: `cd <folder> && claude --resume <id>`.

Pure text, apart from any terminal: the snapshot stores it as each session's `resume` field, and returning to a
task (`lunavect.navigation.resume`) runs it.
"""

from __future__ import annotations

import shlex

CLI_NAMES = {"claude": "claude", "codex": "codex"}
# What follows the CLI's name to resume a session: `claude --resume <id>`, `codex resume <id>`.
_RESUME_ARGS = {"claude": ("--resume",), "codex": ("resume",)}


def in_folder(command: str, cwd: str | None) -> str:
    return f"cd {shlex.quote(cwd)} && {command}" if cwd else command


def resume_args(provider: str, session_id: str) -> tuple[str, ...] | None:
    """The CLI's arguments that resume the session, or None for a provider lunavect cannot resume."""
    verb = _RESUME_ARGS.get(provider)
    return None if verb is None else (*verb, session_id)


def display_command(provider: str, session_id: str, cwd: str | None) -> str | None:
    """What a person types to resume the session (`cd <folder> && claude --resume <id>`), or None for a
    provider lunavect cannot resume. This is also the snapshot's `resume` field."""
    args = resume_args(provider, session_id)
    if args is None:
        return None
    return in_folder(shlex.join([CLI_NAMES[provider], *args]), cwd)
