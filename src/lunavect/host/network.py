"""Is this machine connected to a network? Asked of the operating system, never by calling out.

"No network" is shown when the machine has had no connection for at least ten seconds while a session
works (the guide, "Reading a session"). A connection here means a default route through an interface that
is up: what the OS itself would use to reach Claude or OpenAI. Sending packets to find out would be slower,
would leak that lunavect runs, and would confuse a filtered network with none.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RTF_UP = 0x1
RTF_REJECT = 0x200
IPV6_RTF_REJECT = 0x200


def _interface_up(sys_root: Path, iface: str) -> bool:
    try:
        state = (sys_root / "class" / "net" / iface / "operstate").read_text().strip()
    except OSError:
        return True  # no sysfs entry to say otherwise: trust the routing table
    return state != "down"


# The kernel's two routing tables (under /proc/net), as (file, header lines, fields a row has at least, and the
# columns of its interface, destination, prefix or mask, and flags, all but the interface in hex), with the
# flag that marks a route that rejects.
_ROUTE_TABLES = (
    ("route", 1, 8, (0, 1, 7, 3), RTF_REJECT),
    ("ipv6_route", 0, 10, (9, 0, 1, 8), IPV6_RTF_REJECT),
)


def _linux_has_default_route(proc_root: Path, sys_root: Path) -> bool | None:
    seen_table = False
    for name, header, width, columns, reject in _ROUTE_TABLES:
        try:
            lines = (proc_root / "net" / name).read_text().splitlines()[header:]
        except OSError:
            continue
        seen_table = True
        if _default_route_up(lines, sys_root, width, columns, reject):
            return True
    return False if seen_table else None


def _default_route_up(
    lines: list[str], sys_root: Path, width: int, columns: tuple[int, int, int, int], reject: int
) -> bool:
    """A route of the table to everywhere (destination and prefix 0) that is up, rejects nothing, and goes
    through an interface that is up, other than the loopback."""
    iface, destination, prefix, flags = columns
    for line in lines:
        fields = line.split()
        if len(fields) < width or fields[iface] == "lo":
            continue
        try:
            to, length, flag = int(fields[destination], 16), int(fields[prefix], 16), int(fields[flags], 16)
        except ValueError:
            continue
        if to == 0 and length == 0 and flag & RTF_UP and not flag & reject and _interface_up(sys_root, fields[iface]):
            return True
    return False


def _macos_has_default_route() -> bool | None:
    try:
        done = subprocess.run(["route", "-n", "get", "default"], capture_output=True, timeout=2, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.returncode == 0 and b"interface:" in done.stdout


def has_network(proc_root: Path = Path("/proc"), sys_root: Path = Path("/sys")) -> bool | None:
    """True when a default route goes through an up interface; None when the OS does not say."""
    if sys.platform.startswith("linux"):
        return _linux_has_default_route(proc_root, sys_root)
    if sys.platform == "darwin":
        return _macos_has_default_route()
    return None


class NetworkWatch:
    """Remembers since when the machine has been offline, from samples the collector takes each tick."""

    def __init__(self) -> None:
        self.offline_since: float | None = None

    def sample(self, now: float, connected: bool | None) -> float | None:
        if connected is False:
            if self.offline_since is None:
                self.offline_since = now
        else:
            self.offline_since = None
        return self.offline_since
