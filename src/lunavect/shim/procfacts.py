"""Facts about processes from the system itself, in the standard library: /proc on Linux, `ps` elsewhere.

The shim records which agent process sent an event (its pid, start time and terminal), and the collector
side (lunavect/host/processes.py) reads the same /proc fields through these readers, so /proc/<pid>/stat is
parsed in one place. Only names, parents, start times and terminals are read: never arguments,
environments or memory. The hot path uses `posix` rather than `os`, whose import alone costs a tenth of
a bare interpreter start.
"""

from __future__ import annotations

import posix
import sys
import time

from lunavect.core.clients import by_id

# How many processes a walk up the parents reads at most: deep enough for runtime → shell → wrapper →
# shell → runtime chains and terminal → multiplexer → shell chains; bounded so no table can loop.
MAX_ANCESTRY = 32


def linux_stat(pid: int) -> tuple[str, int, int, int] | None:
    """(comm, ppid, tty_nr, starttime ticks) of a process, from /proc/<pid>/stat."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    open_paren, close_paren = data.find("("), data.rfind(")")
    if open_paren < 0 or close_paren < 0:
        return None
    comm = data[open_paren + 1 : close_paren]
    fields = data[close_paren + 2 :].split()
    try:
        return comm, int(fields[1]), int(fields[4]), int(fields[19])
    except (IndexError, ValueError):
        return None


_BOOT_TIME: float | None = None


def linux_boot_time() -> float | None:
    """The boot time in epoch seconds (/proc/stat's btime), which start ticks count from."""
    global _BOOT_TIME
    if _BOOT_TIME is None:
        try:
            with open("/proc/stat", "rb") as f:
                for line in f:
                    if line.startswith(b"btime "):
                        _BOOT_TIME = float(line.split()[1])
                        break
        except (OSError, ValueError):
            return None
    return _BOOT_TIME


def ticks_to_epoch(start_ticks: int, boot_time: float | None = None) -> float | None:
    """A start in clock ticks since boot, in epoch seconds; None when the boot time is unknown."""
    boot = linux_boot_time() if boot_time is None else boot_time
    if boot is None:
        return None
    try:
        ticks_per_s = posix.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return None
    return boot + start_ticks / ticks_per_s


def linux_started(start_ticks: int) -> float | None:
    """A process's start in epoch seconds, from its start in clock ticks since boot; None when unknown."""
    return ticks_to_epoch(start_ticks)


def lstart_to_epoch(text: str) -> float | None:
    """`ps -o lstart` text ("Sun Nov 29 14:26:34 2026", local time, whole seconds) in epoch seconds."""
    try:
        return time.mktime(time.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y"))
    except ValueError:
        return None


def linux_exe_name(pid: int) -> str:
    """The file name of the process's executable, as /proc/<pid>/exe links it; "" when unreadable."""
    try:
        return posix.readlink(f"/proc/{pid}/exe").rpartition("/")[2]
    except OSError:
        return ""


def linux_tty(pid: int) -> str | None:
    """The process's terminal, from its standard streams' targets."""
    for fd in (0, 1, 2):
        try:
            target = posix.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("/dev/pts/") or (target.startswith("/dev/tty") and target != "/dev/tty"):
            return target
    return None


def process_names(client: str) -> tuple[str, ...]:
    """The names the shim takes for the client's runtime among its ancestors: its runtime's own (its
    descriptor's), and the interpreter its runtime is a script of (`hook_parent`: a hook is the runtime's own
    child, so the nearest such ancestor is it); none for a client lunavect does not know."""
    known = by_id(client)
    if known is None:
        return ()
    return known.process.names + ((known.process.hook_parent,) if known.process.hook_parent else ())


def _linux_agent(client: str, start_pid: int) -> dict:
    names = process_names(client)
    pid = start_pid
    for _ in range(MAX_ANCESTRY):
        if pid <= 1:
            break
        stat = linux_stat(pid)
        if stat is None:
            break
        comm, ppid, _tty_nr, start_ticks = stat
        if comm in names or linux_exe_name(pid) in names:
            facts: dict = {"pid": pid}
            started = linux_started(start_ticks)
            if started is not None:
                facts["pstart"] = round(started, 2)
            tty = linux_tty(pid)
            if tty:
                facts["tty"] = tty
            return facts
        pid = ppid
    return {}


def _ps_agent(client: str, start_pid: int) -> dict:
    """macOS and other systems: one `ps` call lists every process's parent, name, tty and start."""
    import os
    import subprocess

    names = process_names(client)
    try:
        out = subprocess.run(
            ["ps", "-A", "-o", "pid=,ppid=,tty=,lstart=,comm="],
            capture_output=True,
            timeout=2,
            check=False,
            env={"LC_ALL": "C", "PATH": "/bin:/usr/bin"},
        ).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError):
        return {}
    table: dict[int, tuple[int, str, str, str]] = {}
    for line in out.splitlines():
        parts = line.split(None, 8)
        if len(parts) < 9:
            continue
        try:
            pid, ppid = int(parts[0]), int(parts[1])
        except ValueError:
            continue
        # lstart is five words: "Sun Nov 29 14:26:34 2026".
        table[pid] = (ppid, parts[2], " ".join(parts[3:8]), parts[8])
    pid = start_pid
    for _ in range(MAX_ANCESTRY):
        entry = table.get(pid)
        if entry is None:
            break
        ppid, tty, lstart, comm = entry
        if os.path.basename(comm) in names:
            facts: dict = {"pid": pid}
            started = lstart_to_epoch(lstart)
            if started is not None:
                facts["pstart"] = started
            if tty and tty not in ("??", "?", "-"):
                facts["tty"] = tty if tty.startswith("/dev/") else "/dev/" + tty
            return facts
        pid = ppid
    return {}


def agent_process(client: str, start_pid: int | None = None) -> dict:
    """The nearest ancestor that is the agent's own runtime: its pid, start time (epoch s) and tty."""
    start = posix.getppid() if start_pid is None else start_pid
    try:
        if sys.platform.startswith("linux"):
            return _linux_agent(client, start)
        return _ps_agent(client, start)
    except Exception:  # noqa: BLE001 - process facts are optional; never fail the event for them
        return {}
