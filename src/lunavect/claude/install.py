"""Installing lunavect's hooks into Claude Code's settings.json, and taking them out again.

The file is the person's: their own hooks and every other setting stay exactly as they were, a malformed
or unreadable file is refused with a one-line reason and left untouched, the write is atomic, and the
previous version is kept beside it as a backup.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from lunavect import paths

# Every lifecycle event lunavect reads (FACTS.md, research/claude-formats.md §1.1).
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "StopFailure",
    "PreCompact",
    "PostCompact",
    "Elicitation",
    "ElicitationResult",
    "SessionEnd",
)
# The shim returns in milliseconds; this only bounds a pathological machine.
HOOK_TIMEOUT_S = 10
BACKUP_SUFFIX = ".lunavect-backup"
# How lunavect recognises its own entries among the person's hooks.
MARKERS = ("lunavect.hook", "lunavect/hook.py", "lunavect hook ")
# The installed command: the interpreter imports the shim from its cached bytecode, from the folder that
# holds this installation's package (passed as an argument, so `status` can check it still exists).
LAUNCHER = "import sys;sys.path.insert(0,sys.argv.pop(1));import lunavect.hook as h;h.main()"


class SettingsError(Exception):
    """settings.json cannot be read or is not the shape Claude Code reads; nothing was changed."""


def settings_path() -> Path:
    return paths.claude_config_dir() / "settings.json"


def hook_script() -> Path:
    from lunavect import hook

    return Path(hook.__file__).resolve()


def hook_command(client: str = "claude") -> str:
    """The command the agent runs: this installation's interpreter on the shim, without `site`.

    With -I -S and the module's cached bytecode it costs about one bare interpreter start, where the
    `lunavect` console script would first import site-packages and the CLI (bench/hook_shim.py).
    """
    package_parent = hook_script().parent.parent
    return " ".join(
        shlex.quote(word) for word in (sys.executable, "-I", "-S", "-c", LAUNCHER, str(package_parent), client)
    )


def is_ours(handler: object) -> bool:
    return isinstance(handler, dict) and any(m in str(handler.get("command", "")) for m in MARKERS)


def load(path: Path) -> dict:
    """The settings as a dict; {} when the file does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise SettingsError(f"{path} is not UTF-8 text; fix or move it, then run again") from None
    except OSError as exc:
        raise SettingsError(f"cannot read {path}: {exc.strerror}") from None
    if not text.strip():
        return {}
    try:
        settings = json.loads(text)
    except ValueError as exc:
        raise SettingsError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}); fix it, then run again"
        ) from None  # type: ignore[attr-defined]
    if not isinstance(settings, dict):
        raise SettingsError(f"{path} does not hold a JSON object; fix it, then run again")
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError(f'{path}: "hooks" is not an object; fix it, then run again')
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise SettingsError(f'{path}: "hooks.{event}" is not a list; fix it, then run again')
    return settings


def write_atomically(path: Path, settings: dict) -> None:
    """Replace the file in one rename, keeping its mode, with the old version saved beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o600
    if path.exists():
        mode = path.stat().st_mode & 0o777
        shutil.copy2(path, path.with_name(path.name + BACKUP_SUFFIX))
    text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".settings.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _without_ours(groups: list) -> list:
    """The event's matcher groups with lunavect's handlers removed (and groups left empty dropped)."""
    kept = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            kept.append(group)
            continue
        handlers = [h for h in group["hooks"] if not is_ours(h)]
        if handlers:
            kept.append({**group, "hooks": handlers})
        elif not any(is_ours(h) for h in group["hooks"]):
            kept.append(group)
    return kept


def with_hooks(
    settings: dict, command: str, events: tuple[str, ...] = EVENTS, timeouts: dict[str, int] | None = None
) -> dict:
    """The settings with exactly one lunavect entry per event, all pointing at `command` (Codex reuses this
    for its hooks.json, which has the same shape, with its own events and timeouts)."""
    hooks = dict(settings.get("hooks", {}))
    for event in events:
        timeout = (timeouts or {}).get(event, HOOK_TIMEOUT_S)
        groups = _without_ours(list(hooks.get(event, [])))
        groups.append({"matcher": "", "hooks": [{"type": "command", "command": command, "timeout": timeout}]})
        hooks[event] = groups
    return {**settings, "hooks": hooks}


def without_hooks(settings: dict) -> dict:
    if "hooks" not in settings:
        return settings
    hooks = {}
    for event, groups in settings["hooks"].items():
        kept = _without_ours(groups)
        if kept:
            hooks[event] = kept
    result = dict(settings)
    if hooks:
        result["hooks"] = hooks
    else:
        del result["hooks"]
    return result


@dataclass
class Status:
    """What settings.json says of lunavect's hooks."""

    path: Path
    state: str  # installed | missing | partial | stale | unreadable
    events: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    stale_commands: list[str] = field(default_factory=list)
    detail: str = ""


def _command_is_current(command: str, expected: str) -> bool:
    return command == expected


def _command_exists(command: str) -> bool:
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    files = [w for w in words if w.startswith("/")]
    for word in files:
        if not os.path.exists(word):
            return False
        if os.path.isdir(word) and not os.path.exists(os.path.join(word, "lunavect", "hook.py")):
            return False  # the folder is there, but lunavect was removed from it
    return bool(files)


def our_entries(settings: dict, events: tuple[str, ...], expected: str) -> tuple[list[str], set[str]]:
    """The events that have a lunavect handler (once per handler), and the commands of those handlers that
    are not `expected` (Codex reads its hooks.json, which has the same shape, through this too)."""
    present: list[str] = []
    stale: set[str] = set()
    for event in events:
        for group in settings.get("hooks", {}).get(event, []):
            for handler in group.get("hooks", []) if isinstance(group, dict) else []:
                if is_ours(handler):
                    present.append(event)
                    command = str(handler.get("command", ""))
                    if not _command_is_current(command, expected):
                        stale.add(command)
    return present, stale


def status(path: Path | None = None) -> Status:
    path = path or settings_path()
    try:
        settings = load(path)
    except SettingsError as exc:
        return Status(path, "unreadable", detail=str(exc))
    present, stale = our_entries(settings, EVENTS, hook_command())
    missing = [e for e in EVENTS if e not in present]
    if not present:
        return Status(path, "missing", missing=missing)
    if stale:
        broken = [c for c in stale if not _command_exists(c)]
        detail = "points at a path that no longer exists" if broken else "points at another lunavect installation"
        return Status(path, "stale", present, missing, sorted(stale), detail)
    if missing:
        return Status(path, "partial", present, missing)
    return Status(path, "installed", present)


def install_hooks(
    path: Path, command: str, events: tuple[str, ...] = EVENTS, timeouts: dict[str, int] | None = None
) -> bool:
    """Write exactly one lunavect entry per event into the hooks file at `path` (Claude Code's settings.json
    or Codex's hooks.json); True when the file changed."""
    settings = load(path)
    updated = with_hooks(settings, command, events, timeouts)
    if updated == settings and path.exists():
        return False
    write_atomically(path, updated)
    return True


def uninstall_hooks(path: Path) -> bool:
    """Remove lunavect's entries from the hooks file at `path` and nothing else; True when the file changed."""
    if not path.exists():
        return False
    settings = load(path)
    updated = without_hooks(settings)
    if updated == settings:
        return False
    write_atomically(path, updated)
    return True


def install(path: Path | None = None) -> bool:
    """Install or repair lunavect's hooks; True when the file changed."""
    return install_hooks(path or settings_path(), hook_command())


def uninstall(path: Path | None = None) -> bool:
    """Remove lunavect's hooks and nothing else; True when the file changed."""
    return uninstall_hooks(path or settings_path())
