"""This machine's name: the one owner of what every part calls it (the snapshot's `host`, the sync key's host,
the web panel's link and the names it answers to), so that two parts never disagree about which rows are ours.
"""

from __future__ import annotations

import ipaddress
import socket

# What a sync bucket key may hold of a host name (its keys are `<host>.<session>`).
_KEY_CHARS = frozenset("-_")
_KEY_LENGTH = 64


def machine_name() -> str:
    """The machine's host name as the system gives it (`gethostname`), read each time: it can change."""
    return socket.gethostname()


def short_name() -> str:
    """The machine's short host name as a sync key may hold it: before the first dot, with anything else than
    letters, digits, `-` and `_` replaced by `-`."""
    short = machine_name().split(".")[0] or "host"
    cleaned = "".join(ch if ch.isascii() and (ch.isalnum() or ch in _KEY_CHARS) else "-" for ch in short)
    return cleaned.lstrip("-_")[:_KEY_LENGTH] or "host"


def all_names() -> tuple[str, ...]:
    """Every name this machine answers to as the system knows it (its host name and its fully qualified name),
    lower-cased, without repeats."""
    return tuple(dict.fromkeys(n.lower() for n in (machine_name(), socket.getfqdn()) if n))


def reachable_address(ipv6: bool = False) -> str | None:
    """The address other machines on the network reach this one at: the source address the system gives a
    connection out (a UDP socket's connect chooses it and sends nothing, to a documentation address); None
    without a route out, or when that is a loopback address."""
    family, probe = (socket.AF_INET6, "2001:db8::1") if ipv6 else (socket.AF_INET, "192.0.2.1")
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probing:
            probing.connect((probe, 9))
            address = str(probing.getsockname()[0])
    except OSError:
        return None
    try:
        return None if ipaddress.ip_address(address).is_loopback else address
    except ValueError:
        return None
