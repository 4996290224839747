"""Where the hook spool lives, and the one way a line is added to it.

The shim appends one JSON line per event to `<data folder>/spool/events.jsonl` with a single write(2), so
lines of concurrent shims never interleave; the collector (lunavect/evidence/spool.py) reads whole lines only. A write
cut short by a full disk is blanked out where it stands, and every record begins with the same mark, so a
fragment that stays anyway (a shim killed in between) never costs the record written after it.

This module also owns the data folder's location for all of lunavect (lunavect/paths.py asks it): the
shim must find the folder without `site`-installed packages, so the rule is written here by hand in the
standard library, once, instead of asking platformdirs in one place and re-deriving it in another.
"""

from __future__ import annotations

import posix
import sys

from lunavect.shim.jsoncodec import json_dumps

TYPE_CHECKING = False  # typing's own flag costs an import; type checkers treat this name alike
if TYPE_CHECKING:
    from collections.abc import Mapping

SPOOL_FORMAT = 1
SPOOL_DIR_NAME = "spool"
SPOOL_FILE_NAME = "events.jsonl"
# Every record begins with these bytes, and nothing else in a record can hold them: JSON escapes each quote
# inside a string, and no object nested in a record has a key "v". So where a fragment stands glued in front
# of a record, the reader finds the whole record after it (lunavect/evidence/spool.py).
RECORD_START = '{"v":'


def environment() -> Mapping[str, str]:
    """The process's environment without importing `os` (a tenth of a bare interpreter start on the hot path).

    Once something imported `os`, its `os.environ` is the authority (it may have been changed since start);
    before that nothing could change it, and posix's snapshot of the start-up environment is exact."""
    os_module = sys.modules.get("os")
    if os_module is not None:
        return os_module.environ
    encoding, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
    return {key.decode(encoding, errors): value.decode(encoding, errors) for key, value in posix.environ.items()}


def _join(folder: str, *names: str) -> str:
    """os.path.join for relative names."""
    for name in names:
        folder = folder + name if not folder or folder.endswith("/") else folder + "/" + name
    return folder


def _is_normal_absolute(path: str) -> bool:
    """True when os.path.abspath(os.path.expanduser(path)) is `path` itself: nothing to expand or normalise."""
    return path.startswith("/") and "//" not in path and "/." not in path and (path == "/" or not path.endswith("/"))


def data_dir(environ: Mapping[str, str] | None = None) -> str:
    """The data folder: $LUNAVECT_HOME, or the platform's user data folder (as platformdirs names it:
    ~/Library/Application Support on macOS, $XDG_DATA_HOME or ~/.local/share elsewhere)."""
    env = environment() if environ is None else environ
    home = env.get("LUNAVECT_HOME")
    if home:
        if _is_normal_absolute(home):
            return home
        import os

        return os.path.abspath(os.path.expanduser(home))
    user_home = env.get("HOME")
    if not user_home:
        import os

        user_home = os.path.expanduser("~")
    if sys.platform == "darwin":
        return _join(user_home, "Library", "Application Support", "lunavect")
    xdg = env.get("XDG_DATA_HOME", "").strip()
    if not xdg or not xdg.startswith("/"):
        xdg = _join(user_home, ".local", "share")
    return _join(xdg, "lunavect")


def spool_path(environ: Mapping[str, str] | None = None) -> str:
    return _join(data_dir(environ), SPOOL_DIR_NAME, SPOOL_FILE_NAME)


def new_id() -> str:
    """A record id, unique across machines: the collector stores each id once (exactly-once ingestion)."""
    return posix.urandom(12).hex()


_APPEND_FLAGS = posix.O_WRONLY | posix.O_APPEND | posix.O_CREAT | posix.O_NONBLOCK | posix.O_NOFOLLOW
_SEEK_CUR = 1  # os.SEEK_CUR, which posix does not name
_FOLDER_FLAGS = posix.O_RDONLY | posix.O_DIRECTORY | posix.O_NOFOLLOW | posix.O_CLOEXEC


def _open_private_folder(folder: str) -> int | None:
    """The folder's descriptor when it is a real folder of this user that no one else may write; else None.

    Another user's folder, or one anyone may write, would let them swap the spool file for a link or read
    what is appended; the check costs one open and one fstat, a few microseconds of the shim's budget."""
    fd = posix.open(folder, _FOLDER_FLAGS)
    try:
        st = posix.fstat(fd)
    except OSError:
        posix.close(fd)
        return None
    if st.st_uid != posix.getuid() or st.st_mode & 0o022:
        posix.close(fd)
        return None
    return fd


def _open_for_append(path: str) -> int | None:
    """The spool file opened for appending inside its checked folder, creating both when missing; None when
    the folder is not this user's alone, or anything fails."""
    folder, _, name = path.rpartition("/")
    try:
        folder_fd = _open_private_folder(folder)
    except FileNotFoundError:
        try:
            import os

            # makedirs gives only the last folder the mode: create the data folder private first.
            os.makedirs(os.path.dirname(folder), mode=0o700, exist_ok=True)
            os.makedirs(folder, mode=0o700, exist_ok=True)
            folder_fd = _open_private_folder(folder)
        except OSError:
            return None
    except OSError:
        return None
    if folder_fd is None:
        return None
    try:
        return posix.open(name, _APPEND_FLAGS, 0o600, dir_fd=folder_fd)
    except OSError:
        return None
    finally:
        posix.close(folder_fd)


def append_record(path: str, record: dict) -> bool:
    """Append one record as a spool line, its format version first so that the line begins RECORD_START."""
    return append_line(path, json_dumps({"v": SPOOL_FORMAT, **record}))


def append_line(path: str, line: str) -> bool:
    """Append one line (without its newline) with a single write(2); True when it was written whole.

    Never blocks (O_NONBLOCK) and never raises: a full disk, an unwritable folder or one that is not this
    user's alone loses the event, never the agent's time. A write the disk cut short loses only its own
    event: its fragment is blanked out, so the next line does not begin glued to it."""
    data = (line + "\n").encode("ascii")
    fd = _open_for_append(path)
    if fd is None:
        return False
    try:
        written = posix.write(fd, data)
        if written == len(data):
            return True
        if written > 0:
            _blank_out(fd, written)
        return False
    except OSError:
        return False
    finally:
        posix.close(fd)


def _blank_out(fd: int, written: int) -> None:
    """Overwrite the fragment a short write left with spaces ending in a newline: a blank line, which the
    reader skips.

    Not truncated back: between looking at the file's size and cutting it, another shim may append a whole
    line that the cut would take with it. Overwriting bytes already written needs no space the full disk
    lacks, touches only this write's own bytes, and what anyone appended after them stays whole."""
    try:
        import fcntl  # only on this rare path: a C module, but every import costs the agent's time

        end = posix.lseek(fd, 0, _SEEK_CUR)  # after an O_APPEND write: just past this write's bytes
        # pwrite on an O_APPEND descriptor appends on Linux: the flag goes first.
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~posix.O_APPEND)
        posix.pwrite(fd, b" " * (written - 1) + b"\n", end - written)
    except OSError:
        pass  # the fragment stays; the reader still finds the next record after it
