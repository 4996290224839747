"""Whether a file, folder or socket is this user's: the one judge of what another local user could have placed.

Some of what lunavect opens lies where another user of the machine can put something first: tmux's
`tmux-<uid>` folder in a shared /tmp (or `$TMUX_TMPDIR`) and the sockets in it, the listening sockets of the
tmux servers among an agent's parents, a client's database at a path a variable names, lunavect's own data
folder. A tmux server on a socket another user made is theirs: tmux 3.2 and later performs a command client's
file reads and writes in the client's process, so a hook of that server's (`set-hook -g after-list-panes
'save-buffer -a ... ~/.bashrc'`) writes this user's files from lunavect's own `tmux -S <socket> list-panes`.
A FIFO where a database should be blocks whoever opens it.

So each of them is used only once `lstat` (never following a link) shows the right kind, owned by this user,
and, for a file or a folder, writable by nobody else (a folder that others may write lets them swap what is
in it; tmux refuses its own folder on the same grounds). A socket's owner is the user whose process bound it.
"""

from __future__ import annotations

import os
import stat

FILE, FOLDER, SOCKET = "regular file", "folder", "socket"
_IS = {FILE: stat.S_ISREG, FOLDER: stat.S_ISDIR, SOCKET: stat.S_ISSOCK}
_KINDS = (
    (stat.S_ISLNK, "symbolic link"),
    (stat.S_ISREG, FILE),
    (stat.S_ISDIR, FOLDER),
    (stat.S_ISSOCK, SOCKET),
    (stat.S_ISFIFO, "FIFO"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
)
# Write bits that let someone else change a file, or swap what a folder holds.
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


class NotMine(OSError):
    """A path that is not this user's file, folder or socket of the kind wanted (a link, a FIFO, another
    user's, writable by others)."""


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "special file")


def refusal(st: os.stat_result, kind: str, uid: int | None = None) -> str | None:
    """Why what `st` (an `lstat` or an `fstat`) describes is not this user's `kind`, as the end of "<path> is
    ...", or None when it is. `uid`: the user it must belong to, this process's by default."""
    uid = os.getuid() if uid is None else uid
    if not _IS[kind](st.st_mode):
        found = _kind(st.st_mode)
        return f"a {found}" if found == "symbolic link" else f"a {found}, not a {kind}"
    if st.st_uid != uid or (kind != SOCKET and st.st_mode & _OTHERS_WRITE):
        return f"not yours alone (owner uid {st.st_uid}, mode {stat.S_IMODE(st.st_mode):o})"
    return None


def why_not_mine(path: str | os.PathLike[str], kind: str, uid: int | None = None) -> str | None:
    """Why `path` is not this user's `kind` (`refusal`), "missing" when nothing is there, or None when it is."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    return refusal(st, kind, uid)


def is_mine(path: str | os.PathLike[str], kind: str, uid: int | None = None) -> bool:
    """True when `path` is this user's `kind` (see the module's docstring)."""
    return why_not_mine(path, kind, uid) is None


def require_mine(path: str | os.PathLike[str], kind: str) -> None:
    """Nothing when `path` is this user's `kind`; FileNotFoundError when nothing is there; else NotMine, whose
    message names the path and why."""
    why = why_not_mine(path, kind)
    if why == "missing":
        raise FileNotFoundError(2, "No such file or directory", os.fspath(path))
    if why is not None:
        raise NotMine(f"{os.fspath(path)} is {why}")
