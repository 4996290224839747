"""A file lunavect owns whole in a client's folder (OpenCode's plugin, GitHub Copilot CLI's hooks file): written in
one rename, removed whole, and a file of its name that is not lunavect's refused and left as it is.

The client reads every file of its kind in that folder (`plugin/*.js`, `hooks/*.json`), so lunavect touches none
of the person's own: an install and an uninstall change that one file and nothing else. Whether a file is
lunavect's, and current, is the client's installer's to say (its status: `installed`, `missing`, `stale`, or
`unreadable` for a file lunavect may not touch); these are the steps every such installer takes after it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from lunavect.install.atomic import replace_file


class NotOurs(Exception):
    """The file cannot be written or removed as asked (the line to print)."""


class OwnStatus(Protocol):
    @property
    def path(self) -> Path: ...

    @property
    def state(self) -> str: ...

    @property
    def detail(self) -> str: ...


def _to_change(current: OwnStatus, done: str) -> Path | None:
    """The file's path when there is something to do; None when it already is `done` (installed, missing). A file
    of that name that is not lunavect's (`unreadable`) is refused: `NotOurs`."""
    if current.state == done:
        return None
    if current.state == "unreadable":
        raise NotOurs(f"{current.path}: {current.detail}; lunavect left it as it is")
    return current.path


def _write(path: Path, text: str, *, mode: int) -> None:
    """The file as lunavect writes it. Its temporary name ends in `.tmp` until renamed: the client, which loads every
    file of its kind in the folder, never loads a half-written one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, text, mode=mode, prefix=".lunavect.")


def install(current: OwnStatus, text: str, *, mode: int) -> bool:
    """Write the file as `text` (or bring it up to date); False when it already was."""
    path = _to_change(current, done="installed")
    if path is None:
        return False
    _write(path, text, mode=mode)
    return True


def uninstall(current: OwnStatus) -> bool:
    """Remove the file and nothing else; False when there was none."""
    path = _to_change(current, done="missing")
    if path is None:
        return False
    path.unlink()
    return True
