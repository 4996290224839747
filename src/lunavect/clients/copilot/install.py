"""lunavect's hooks for GitHub Copilot CLI: one hooks file of its own, written, checked and removed whole.

Copilot CLI runs the hooks of every `hooks/*.json` in its home (`$COPILOT_HOME`, else `~/.copilot`), each file
`{"version": 1, "hooks": {"<event>": [{"type": "command", "bash": "<command>", "timeoutSec": <s>}]}}`, beside
those of its settings and of a trusted repository. lunavect's is `hooks/lunavect.json`: the person's other hook
files and settings are never read or touched, so an install and an uninstall change nothing else, byte for byte.
Each entry's command names its event after the client (`lunavect hook copilot agentStop`): the payloads do not.
A file of that name that is not lunavect's (any command in it runs something else) is refused, never replaced;
uninstall removes exactly lunavect's file.
"""

from __future__ import annotations

import json
from pathlib import Path

from lunavect.clients.copilot.hooks import EVENTS, PROVIDER
from lunavect.clients.copilot.layout import hooks_dir
from lunavect.install import file_status, own_file
from lunavect.install.command import MARKERS, hook_command, still_runs
from lunavect.install.file_status import FileStatus
from lunavect.install.hooks_file import ANOTHER_INSTALLATION, HOOK_TIMEOUT_S, NO_LONGER_RUNS, describe
from lunavect.install.outcome import installed

FILE_NAME = "lunavect.json"
# Copilot CLI reads a hooks file of this format version only.
VERSION = 1
NOT_OURS = "a hooks file of that name that is not lunavect's"

# Nothing of its own to add to what a hooks file says.
Status = FileStatus


# lunavect's hooks file cannot be written or removed as asked (the line to print).
HooksError = own_file.NotOurs


def hooks_path() -> Path:
    return hooks_dir() / FILE_NAME


def hooks_text() -> str:
    """The file as this installation writes it."""
    entries = {
        event: [{"type": "command", "bash": hook_command(PROVIDER, event), "timeoutSec": HOOK_TIMEOUT_S}]
        for event in EVENTS
    }
    return json.dumps({"version": VERSION, "hooks": entries}, indent=2) + "\n"


def _commands(settings: object) -> dict[str, list[str]] | None:
    """Each event's commands, or None when the file is not a hooks file all of whose commands are lunavect's."""
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    if not isinstance(hooks, dict) or not hooks:
        return None
    found: dict[str, list[str]] = {}
    for event, handlers in hooks.items():
        if not isinstance(handlers, list):
            return None
        commands = [h.get("bash") if isinstance(h, dict) else None for h in handlers]
        if not all(isinstance(c, str) and any(m in c for m in MARKERS) for c in commands):
            return None
        found[event] = [c for c in commands if isinstance(c, str)]
    return found


def status(path: Path | None = None) -> Status:
    path = path or hooks_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Status(path, "missing", missing=list(EVENTS))
    except (OSError, UnicodeDecodeError) as exc:
        return Status(path, "unreadable", detail=f"cannot read it: {exc}")
    if text == hooks_text():
        return Status(path, "installed", events=list(EVENTS))
    try:
        commands = _commands(json.loads(text))
    except ValueError:
        commands = None
    if commands is None:
        return Status(path, "unreadable", detail=NOT_OURS)
    missing = [event for event in EVENTS if not commands.get(event)]
    stale = sorted({c for event, cs in commands.items() for c in cs if c != hook_command(PROVIDER, event)})
    present = [event for event in EVENTS if commands.get(event)]
    if stale:
        broken = any(not still_runs(c) for c in stale)
        return Status(path, "stale", present, missing, stale, NO_LONGER_RUNS if broken else ANOTHER_INSTALLATION)
    if missing:
        return Status(path, "partial", present, missing)
    return Status(path, "stale", present, detail="written by another lunavect version")


def install() -> bool:
    """Write lunavect's hooks file (or bring it up to date); False when it already was."""
    return own_file.install(status(), hooks_text(), mode=0o600)


def uninstall() -> bool:
    """Remove lunavect's hooks file and nothing else; False when there was none."""
    return own_file.uninstall(status())


def describe_install(changed: bool) -> str:
    return f"{installed(PROVIDER, changed, hooks_path())} (read when a session starts)"


def describe_status(state: Status) -> str:
    return describe(PROVIDER, state.state, state.path, state.detail, state.missing)


def report(state: Status) -> dict:
    return file_status.report(state, "hooks")
