"""Editing a client's hooks file (Claude Code's settings.json, Codex's hooks.json): the person's file.

Their own hooks and every other setting stay exactly as they were, a malformed or unreadable file is refused
with a one-line reason and left untouched, the file is written only when lunavect's entries change, the
write is atomic, and the previous version is kept beside it as a backup. Reading (`load`), deciding
(`with_hooks`, `without_hooks`) and writing (`write_atomically`) are separate steps, so a later change to
how the file is written (keeping the person's bytes, writing through a symlink) touches one function.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lunavect.install.atomic import replace_file
from lunavect.install.command import HTTP_PATH_PREFIX, MARKERS, still_runs

# The shim returns in milliseconds; this only bounds a pathological machine.
HOOK_TIMEOUT_S = 10
BACKUP_SUFFIX = ".lunavect-backup"
# The module Claude Code's status line runs when lunavect wrapped it (`install.statusline`).
STATUS_LINE_MODULE = "lunavect.shim.statusline"


class HooksRefused(Exception):
    """An install or uninstall a client's face refused, with the line the command prints."""


class HooksFileError(Exception):
    """The hooks file cannot be read or is not the shape the client reads; nothing was changed."""


class WrittenNumber(float):
    """A number of the person's file that remembers how it was written (`1e2`, `1.50`): json.dumps would write
    `100.0` and `1.5`, and a minimal edit must not rewrite what it did not change."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> WrittenNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number


def is_ours(handler: object) -> bool:
    """lunavect's own handler: a command running its shim, or an HTTP hook to its listener's path."""
    if not isinstance(handler, dict):
        return False
    if handler.get("type") == "http":
        return HTTP_PATH_PREFIX in str(handler.get("url", ""))
    return any(m in str(handler.get("command", "")) for m in MARKERS)


def load(path: Path) -> dict:
    """The file's settings as a dict; {} when the file does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise HooksFileError(f"{path} is not UTF-8 text; fix or move it, then run again") from None
    except OSError as exc:
        raise HooksFileError(f"cannot read {path}: {exc.strerror}") from None
    if not text.strip():
        return {}
    try:
        settings = json.loads(text, parse_float=WrittenNumber)
    except json.JSONDecodeError as exc:
        raise HooksFileError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}); fix it, then run again"
        ) from None
    if not isinstance(settings, dict):
        raise HooksFileError(f"{path} does not hold a JSON object; fix it, then run again")
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HooksFileError(f'{path}: "hooks" is not an object; fix it, then run again')
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise HooksFileError(f'{path}: "hooks.{event}" is not a list; fix it, then run again')
    return settings


def load_plain(path: Path) -> dict:
    """`load`, for a client that reads its settings as JSON with comments (Gemini CLI, Qwen Code): lunavect edits
    plain JSON only, so a file with comments is refused with why, and left as it is."""
    try:
        return load(path)
    except HooksFileError as exc:
        if "not valid JSON" in str(exc) and _has_comments(path):
            raise HooksFileError(
                f"{path} holds comments, which lunavect cannot keep when it edits the file; remove them (or add "
                "lunavect's hooks by hand), then run again"
            ) from None
        raise


def _has_comments(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.lstrip().startswith(("//", "/*")) for line in text.splitlines())


def render(settings: dict, like: str = "") -> str:
    """The settings as JSON in the style of the person's file `like`: its indentation, \\u escapes when it
    wrote non-ASCII that way, and each number as it was written."""
    indent: int | str = 2
    for line in like.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and stripped != line:
            lead = line[: len(line) - len(stripped)]
            indent = "\t" if lead.startswith("\t") else len(lead)
            break
    escaped = "\\u" in like and like.isascii()
    written: dict[str, str] = {}
    text = json.dumps(_marked(settings, written), indent=indent, ensure_ascii=escaped) + "\n"
    for marker, number in written.items():
        text = text.replace(json.dumps(marker), number, 1)
    return text


def _marked(value: object, written: dict[str, str]) -> object:
    """`value` with each number whose written form json.dumps would change replaced by a unique marker
    string (recorded in `written`), which `render` swaps back for the number as written."""
    if isinstance(value, WrittenNumber):
        if json.dumps(value) == value.text:
            return value
        marker = f"\0lunavect-number-{secrets.token_hex(8)}\0"
        written[marker] = value.text
        return marker
    if isinstance(value, dict):
        return {key: _marked(item, written) for key, item in value.items()}
    if isinstance(value, list):
        return [_marked(item, written) for item in value]
    return value


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def _target(path: Path) -> Path:
    """Where the settings really are: a symlinked settings.json (dotfiles) is written through, never replaced."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def refuse_read_only(path: Path) -> None:
    """A file the person made read-only is theirs to keep so: say so rather than rewrite it (root could)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not mode & 0o200:
        raise HooksFileError(
            f"{path} is read-only (mode {mode & 0o777:o}); lunavect left it as it is: make it writable "
            "(chmod u+w), then run again"
        )


def has_ours(settings: dict) -> bool:
    """Anything of lunavect's in the file: a hook, or Claude Code's status line wrapped. A backup is taken only
    from a file without any, so that it is the person's own version for every uninstall."""
    hooks = settings.get("hooks")
    groups = [g for v in hooks.values() if isinstance(v, list) for g in v] if isinstance(hooks, dict) else []
    if any(is_ours(h) for g in groups if isinstance(g, dict) for h in g.get("hooks", []) or []):
        return True
    line = settings.get("statusLine")
    return isinstance(line, dict) and isinstance(line.get("command"), str) and STATUS_LINE_MODULE in line["command"]


def write_atomically(
    path: Path, settings: dict, *, data: str | None = None, backup: bool = True, private: bool = False
) -> None:
    """Replace the file in one rename (through a symlink to its target), keeping its mode; with `backup`, the
    version replaced is saved beside it first. `data` is written as it is instead of `settings`. `private`
    (the file will hold a secret) takes away what the group and others may do, before the secret is written."""
    target = _target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o600
    like = ""
    if target.exists():
        mode = target.stat().st_mode & 0o777
        if private:
            mode &= 0o700
        like = target.read_text(encoding="utf-8", errors="replace")
        if backup:
            shutil.copy2(target, backup_path(path))
    replace_file(target, render(settings, like) if data is None else data, mode=mode, prefix=".settings.")


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
    settings: dict,
    command: str,
    events: tuple[str, ...],
    timeouts: dict[str, int] | None = None,
    handlers: dict[str, dict] | None = None,
) -> dict:
    """The settings with exactly one lunavect entry per event: the handler `handlers` names for it (an HTTP
    hook), else `command`."""
    hooks = dict(settings.get("hooks", {}))
    for event in events:
        timeout = (timeouts or {}).get(event, HOOK_TIMEOUT_S)
        handler = (handlers or {}).get(event) or {"type": "command", "command": command, "timeout": timeout}
        groups = _without_ours(list(hooks.get(event, [])))
        groups.append({"matcher": "", "hooks": [handler]})
        hooks[event] = groups
    return {**settings, "hooks": hooks}


def without_hooks(settings: dict) -> dict:
    if "hooks" not in settings:
        return settings
    hooks = {}
    for event, groups in settings["hooks"].items():
        kept = _without_ours(groups)
        if kept or not groups:  # the person's own empty list stays; one lunavect emptied goes
            hooks[event] = kept
    result = dict(settings)
    if hooks:
        result["hooks"] = hooks
    else:
        del result["hooks"]
    return result


def our_entries(
    settings: dict, events: tuple[str, ...], expected: str, expected_http: dict[str, dict] | None = None
) -> tuple[list[str], set[str]]:
    """The events that have a lunavect handler (once per handler), and the commands (or HTTP URLs) of those
    handlers that are not what this installation wrote: `expected`, or for the events `expected_http` names,
    exactly that HTTP handler (its URL, secret and timeout)."""
    present: list[str] = []
    stale: set[str] = set()
    for event in events:
        for group in settings.get("hooks", {}).get(event, []):
            for handler in group.get("hooks", []) if isinstance(group, dict) else []:
                if not is_ours(handler):
                    continue
                present.append(event)
                wanted = (expected_http or {}).get(event)
                if handler.get("type") == "http" or wanted is not None:
                    if handler != wanted:
                        stale.add(str(handler.get("url") or handler.get("command", "")))
                    continue
                command = str(handler.get("command", ""))
                if command != expected:
                    stale.add(command)
    return present, stale


# What `hooks status` says of a command that is not this installation's.
NO_LONGER_RUNS = "points at a path that no longer exists"
ANOTHER_INSTALLATION = "points at another lunavect installation"


@dataclass
class Entries:
    """What a hooks file says of lunavect's entries, before any client-specific check."""

    state: str  # installed | missing | partial | stale
    events: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    stale_commands: list[str] = field(default_factory=list)
    detail: str = ""


def entries(
    settings: dict, events: tuple[str, ...], expected: str, expected_http: dict[str, dict] | None = None
) -> Entries:
    """Whether every event has lunavect's entry and each entry runs this installation's command. A command
    that no longer runs the shim (its interpreter or package folder is gone) is stale just like another
    installation's, and says so, because the shim's failures never reach the person."""
    present, stale = our_entries(settings, events, expected, expected_http)
    missing = [e for e in events if e not in present]
    if not present:
        return Entries("missing", missing=missing)
    if stale:
        broken = any(not c.startswith("http") and not still_runs(c) for c in stale)
        return Entries("stale", present, missing, sorted(stale), NO_LONGER_RUNS if broken else ANOTHER_INSTALLATION)
    if missing:
        return Entries("partial", present, missing)
    return Entries("installed", present)


def install_hooks(
    path: Path,
    command: str,
    events: tuple[str, ...],
    timeouts: dict[str, int] | None = None,
    handlers: dict[str, dict] | None = None,
    also: Callable[[dict], dict] | None = None,
    private: bool = False,
) -> bool:
    """Write exactly one lunavect entry per event into the hooks file at `path` (and what `also` changes in the
    settings besides); True when the file changed. `private`: the entries hold a secret, so the file is made
    readable by its owner only (even when it already held them), its bytes otherwise as they were."""
    settings = load(path)
    updated = with_hooks(settings, command, events, timeouts, handlers)
    if also is not None:
        updated = also(updated)
    if updated == settings and path.exists():
        if private:
            make_private(path)
        return False
    refuse_read_only(path)
    # The backup keeps the person's own version: taken only from a file that has no lunavect entry yet.
    write_atomically(path, updated, backup=not has_ours(settings), private=private)
    return True


def make_private(path: Path) -> None:
    """Take the group's and others' access away from the file (through a symlink, to its target)."""
    target = _target(path)
    mode = target.stat().st_mode & 0o777
    if mode & 0o077:
        os.chmod(target, mode & 0o700)


def uninstall_hooks(path: Path, also: Callable[[dict], dict] | None = None) -> bool:
    """Remove lunavect's entries from the hooks file at `path` (and what `also` takes out besides) and nothing
    else; True when the file changed."""
    if not path.exists():
        return False
    settings = load(path)
    updated = without_hooks(settings)
    if also is not None:
        updated = also(updated)
    if updated == settings:
        return False
    refuse_read_only(path)
    write_restoring(path, updated)
    return True


def write_restoring(path: Path, updated: dict) -> None:
    """Write what an uninstall leaves: the person's own bytes (the backup) when nothing else changed since
    install, else `updated` in their style with the empty event lists they had. The backup stays as it is: it
    keeps the person's version from before install."""
    original = backup_path(path)
    try:
        before = load(original) if original.exists() else None
    except HooksFileError:
        before = None
    if before is not None:
        if _without_empty(before) == _without_empty(updated):
            write_atomically(path, updated, data=original.read_text(encoding="utf-8"), backup=False)
            return
        updated = _restore_empty(updated, before)
    write_atomically(path, updated, backup=False)


def _without_empty(settings: dict) -> dict:
    """The settings without empty event lists (nor an empty "hooks"): install fills a person's `"Stop": []`."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return settings
    kept = {event: groups for event, groups in hooks.items() if groups}
    result = {k: v for k, v in settings.items() if k != "hooks"}
    if kept:
        result["hooks"] = kept
    return result


def _restore_empty(settings: dict, before: dict) -> dict:
    """`settings` with the empty event lists the person had before install (and that are now gone) back."""
    old = before.get("hooks")
    empty = [event for event, groups in old.items() if groups == []] if isinstance(old, dict) else []
    if not empty:
        return settings
    hooks = dict(settings.get("hooks", {}))
    for event in empty:
        hooks.setdefault(event, [])
    return {**settings, "hooks": hooks}


def describe(client: str, state: str, path: Path, detail: str, missing: list[str]) -> str:
    """One line of `hooks status`: a stale entry says to reinstall, because until then every event is lost."""
    line = f"{client}: {'stale: reinstall' if state == 'stale' else state} ({path})"
    if detail:
        line += f": {detail}"
    if missing and state != "missing":
        line += f"; missing events: {', '.join(missing)}"
    return line
