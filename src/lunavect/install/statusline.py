"""Installing the status-line wrapper into Claude Code's settings.json, and taking it out again.

Opt-in (`lunavect hooks install --statusline`). The person's own status-line command is kept inside the
wrapper's command line as its last argument, so the wrapper runs it unchanged and `uninstall` puts it back
exactly; every other key of `statusLine` (its `padding`, ...) and of the file stays as it was. The file is
read, decided on and written with `hooks_file`'s care (malformed files refused untouched, atomic write,
one backup of the person's own version, their exact bytes back when nothing else changed).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from lunavect.install.command import package_parent
from lunavect.install.hooks_file import (
    STATUS_LINE_MODULE,
    HooksFileError,
    has_ours,
    load,
    refuse_read_only,
    write_atomically,
    write_restoring,
)

MODULE = STATUS_LINE_MODULE
LAUNCHER = f"import sys;sys.path.insert(0,sys.argv.pop(1));import {MODULE} as s;s.main()"


def wrapper_command(original: str | None) -> str:
    words = [sys.executable, "-I", "-S", "-c", LAUNCHER, str(package_parent())]
    if original:
        words.append(original)
    return " ".join(shlex.quote(word) for word in words)


def is_ours(command: object) -> bool:
    return isinstance(command, str) and MODULE in command


def original_of(command: str) -> str | None:
    """The person's command kept in the wrapper's (None when there was none)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    return words[6] if len(words) > 6 else None


def _status_line(settings: dict, path: Path) -> dict | None:
    line = settings.get("statusLine")
    if line is not None and not isinstance(line, dict):
        raise HooksFileError(f'{path}: "statusLine" is not an object; fix it, then run again')
    return line


def install(path: Path) -> bool:
    """Wrap the person's status line (or add one that only records); False when already installed."""
    settings = load(path)
    line = _status_line(settings, path)
    if line is not None and is_ours(line.get("command")):
        wanted = wrapper_command(original_of(line["command"]))
        if line["command"] == wanted:
            return False
        line = {**line, "command": wanted}  # another installation of lunavect: this one's interpreter
    elif line is None:
        line = {"type": "command", "command": wrapper_command(None)}
    else:
        original = line.get("command")
        if line.get("type", "command") != "command" or not isinstance(original, str):
            raise HooksFileError(f'{path}: "statusLine" is not a command; nothing was changed')
        line = {**line, "command": wrapper_command(original)}
    refuse_read_only(path)
    write_atomically(path, {**settings, "statusLine": line}, backup=not has_ours(settings))
    return True


def uninstall(path: Path) -> bool:
    """Put the person's own status line back exactly (or remove the one lunavect added)."""
    settings = load(path)
    line = _status_line(settings, path)
    if line is None or not is_ours(line.get("command")):
        return False
    original = original_of(line["command"])
    result = dict(settings)
    if original is None:
        del result["statusLine"]
    else:
        result["statusLine"] = {**line, "command": original}
    refuse_read_only(path)
    write_restoring(path, result)
    return True


def installed(path: Path) -> bool:
    try:
        line = _status_line(load(path), path)
    except HooksFileError:
        return False
    return line is not None and is_ours(line.get("command"))
