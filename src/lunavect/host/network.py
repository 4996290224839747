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


def _linux_has_default_route(proc_root: Path, sys_root: Path) -> bool | None:
    seen_table = False
    try:
        lines = (proc_root / "net" / "route").read_text().splitlines()[1:]
        seen_table = True
    except OSError:
        lines = []
    for line in lines:
        fields = line.split()
        if len(fields) < 8 or fields[0] == "lo":
            continue
        try:
            destination, flags, mask = int(fields[1], 16), int(fields[3], 16), int(fields[7], 16)
        except ValueError:
            continue
        if destination == 0 and mask == 0 and flags & RTF_UP and not flags & RTF_REJECT:
            if _interface_up(sys_root, fields[0]):
                return True
    try:
        lines6 = (proc_root / "net" / "ipv6_route").read_text().splitlines()
        seen_table = True
    except OSError:
        lines6 = []
    for line in lines6:
        fields = line.split()
        if len(fields) < 10 or fields[9] == "lo":
            continue
        try:
            destination, prefix, flags = int(fields[0], 16), int(fields[1], 16), int(fields[8], 16)
        except ValueError:
            continue
        if destination == 0 and prefix == 0 and flags & RTF_UP and not flags & IPV6_RTF_REJECT:
            if _interface_up(sys_root, fields[9]):
                return True
    return False if seen_table else None


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
