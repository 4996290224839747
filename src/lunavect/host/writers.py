"""Who has a file open for writing: the writer proof behind Codex's log freshness.

A client that still holds its session log open for writing is still that session's live writer, however long
it has been silent. The file is matched by device and inode (a path can be replaced), and only a descriptor
opened for writing counts: an editor, a `tail` or lunavect itself reading the file proves nothing.

Linux reads `/proc/<pid>/fd` (the target's device and inode) and `/proc/<pid>/fdinfo/<fd>` (the open flags);
macOS asks `lsof` for the same fields. Executable paths and parent pids are the only other facts read:
never a process's arguments, environment or memory. Anything inaccessible is reported as unknown, never as
"not writing".
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass

# The access-mode bits of open(2) flags, as fdinfo prints them (octal).
_O_ACCMODE = 0o3
_WRITABLE_MODES = (0o1, 0o2)  # O_WRONLY, O_RDWR
LSOF_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class FileId:
    """A file's identity: device and inode (the path may be replaced; this may not)."""

    dev: int
    ino: int


def file_id(path: str | os.PathLike[str]) -> FileId | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return FileId(st.st_dev, st.st_ino)


@dataclass
class WriterScan:
    """One batched look at the candidate processes: which targets each has open for writing."""

    # target -> pids holding it open for writing
    writers: dict[FileId, set[int]]
    # pids whose descriptors could not be read (gone, or not ours to read)
    inaccessible: set[int]
    # pids that were looked at
    scanned: set[int]

    def proof(self, target: FileId) -> bool | None:
        """True when some scanned process writes the target; False only when every candidate was readable."""
        if self.writers.get(target):
            return True
        # A process we could not read may be the writer: that is unknown, not "no writer".
        return None if self.inaccessible else False


# -- Linux ----------------------------------------------------------------------------------------------------


def _linux_writable(pid: int, fd: str) -> bool | None:
    try:
        with open(f"/proc/{pid}/fdinfo/{fd}", "rb") as f:
            for line in f:
                if line.startswith(b"flags:"):
                    return (int(line.split()[1], 8) & _O_ACCMODE) in _WRITABLE_MODES
    except (OSError, ValueError, IndexError):
        return None
    return None


def _linux_scan(pids: Iterable[int], targets: set[FileId]) -> WriterScan:
    scan = WriterScan({}, set(), set())
    for pid in pids:
        scan.scanned.add(pid)
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            scan.inaccessible.add(pid)
            continue
        for fd in fds:
            try:
                st = os.stat(f"/proc/{pid}/fd/{fd}")  # follows the descriptor to its file
            except OSError:
                continue  # closed meanwhile, or a descriptor without a file
            target = FileId(st.st_dev, st.st_ino)
            if target in targets and _linux_writable(pid, fd):
                scan.writers.setdefault(target, set()).add(pid)
    return scan


# -- macOS (and other systems with lsof) ---------------------------------------------------------------------


def _lsof_scan(pids: Iterable[int], targets: set[FileId]) -> WriterScan:
    wanted = sorted(set(pids))
    scan = WriterScan({}, set(), set(wanted))
    if not wanted:
        return scan
    try:
        out = subprocess.run(
            ["lsof", "-n", "-P", "-w", "-F", "pfaDi", "-p", ",".join(map(str, wanted))],
            capture_output=True,
            timeout=LSOF_TIMEOUT_S,
            check=False,
            env={"LC_ALL": "C", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
        ).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError):
        scan.inaccessible = set(wanted)
        return scan
    seen: set[int] = set()
    pid = access = dev = ino = None

    def flush() -> None:
        if pid is not None and access in ("w", "u") and dev is not None and ino is not None:
            target = FileId(dev, ino)
            if target in targets:
                scan.writers.setdefault(target, set()).add(pid)

    for line in out.splitlines():
        if not line:
            continue
        tag, value = line[0], line[1:]
        try:
            if tag == "p":
                flush()
                pid, access, dev, ino = int(value), None, None, None
                seen.add(pid)
            elif tag == "f":
                flush()
                access = dev = ino = None
            elif tag == "a":
                access = value.strip()
            elif tag == "D":
                dev = int(value, 16) if value.startswith("0x") else int(value)
            elif tag == "i":
                ino = int(value)
        except ValueError:
            continue
    flush()
    scan.inaccessible = set(wanted) - seen
    return scan


def scan_writers(pids: Iterable[int], targets: Iterable[FileId]) -> WriterScan:
    """Which of `pids` hold which of `targets` open for writing, in one batched look."""
    wanted = set(targets)
    if sys.platform.startswith("linux"):
        return _linux_scan(pids, wanted)
    return _lsof_scan(pids, wanted)


# -- which processes are candidates -----------------------------------------------------------------------------


def _linux_exe(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


def _linux_comm(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/comm", "rb") as f:
            return f.read().decode("utf-8", "replace").strip()
    except OSError:
        return None


def processes_by_executable(names: set[str], paths: set[str]) -> list[int]:
    """Pids whose executable's file name is in `names` or whose executable path is in `paths`.

    Only the executable path (and on Linux the short process name) is read.
    """
    found: list[int] = []
    if sys.platform.startswith("linux"):
        try:
            pids = [int(d) for d in os.listdir("/proc") if d.isdigit()]
        except OSError:
            return found
        for pid in pids:
            exe = _linux_exe(pid)
            if exe is not None:
                exe = exe.removesuffix(" (deleted)")
                if exe in paths or os.path.basename(exe) in names:
                    found.append(pid)
            elif _linux_comm(pid) in names:
                found.append(pid)  # exe not readable: the kernel's short name is still a candidate
        return found
    import psutil

    for proc in psutil.process_iter():
        try:
            exe = proc.exe()
        except (psutil.Error, OSError):
            continue
        if exe and (exe in paths or os.path.basename(exe) in names):
            found.append(proc.pid)
    return found


def reconcile_ownership(previous: set[str], observed: set[str], misses: dict[str, int]) -> set[str]:
    """Owners after one more process snapshot: one missed snapshot keeps ownership, the second retires it.

    A process table read races with processes opening and closing files; a single miss is not proof that the
    writer left. `misses` carries the consecutive miss counts between calls.
    """
    owned = set(observed)
    for path in observed:
        misses.pop(path, None)
    for path in previous - observed:
        count = misses.get(path, 0) + 1
        if count < 2:
            misses[path] = count
            owned.add(path)
        else:
            misses.pop(path, None)
    for path in list(misses):
        if path not in previous and path not in observed:
            misses.pop(path, None)
    return owned
