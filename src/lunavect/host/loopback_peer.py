"""Who owns the other end of a loopback TCP connection (Linux): the uid the hook listener lets in or refuses.

A loopback connection's other end is a socket of this same machine, and the kernel knows its owner. The
exact question, by the connection's four addresses, goes to the kernel's socket diagnostics (netlink
sock_diag, the interface `ss` uses; unprivileged): one lookup, tens of microseconds. /proc/net/tcp says the
same, but the kernel writes out every socket of the machine to answer a read of it (with a thousand sockets
in TIME_WAIT, 15 ms measured), and an HTTP hook waits for this answer; it is the fallback only.
"""

from __future__ import annotations

import socket
import struct
import sys

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 1
NLMSG_ERROR = 2
_NO_COOKIE = 0xFFFFFFFF
_ALL_STATES = 0xFFFFFFFF
# inet_diag_msg: family, state, timer, retrans (4 bytes), the socket's id (48), expires, rqueue, wqueue (12).
_UID_OFFSET = 16 + 4 + 48 + 12


def _sockid(src: tuple[str, int], dst: tuple[str, int]) -> bytes:
    return (
        struct.pack("!HH", src[1], dst[1])
        + socket.inet_aton(src[0]).ljust(16, b"\0")
        + socket.inet_aton(dst[0]).ljust(16, b"\0")
        + struct.pack("=III", 0, _NO_COOKIE, _NO_COOKIE)
    )


def _netlink_uid(peer: tuple[str, int], local: tuple[str, int]) -> int | None:
    """The owner of the socket at `peer` connected to `local`; -1 when the kernel has no such socket; None
    when it cannot be asked (not Linux, netlink refused)."""
    request = struct.pack("=BBBBI", socket.AF_INET, socket.IPPROTO_TCP, 0, 0, _ALL_STATES) + _sockid(peer, local)
    message = struct.pack("=IHHII", 16 + len(request), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, 1, 0) + request
    try:
        with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG) as nl:
            nl.settimeout(1.0)
            nl.send(message)
            reply = nl.recv(8192)
    except (OSError, AttributeError):
        return None
    if len(reply) < 16:
        return None
    kind = struct.unpack_from("=H", reply, 4)[0]
    if kind == NLMSG_ERROR:
        return -1  # ENOENT: no such socket (gone, or not a local one): refuse rather than guess
    if kind != SOCK_DIAG_BY_FAMILY or len(reply) < _UID_OFFSET + 4:
        return None
    return int(struct.unpack_from("=I", reply, _UID_OFFSET)[0])


def _proc_net_address(host: str, port: int) -> str:
    """An IPv4 address as /proc/net/tcp writes it: the address's bytes in host order, in hex, then the port."""
    packed = socket.inet_aton(host)
    return f"{int.from_bytes(packed, 'little' if sys.byteorder == 'little' else 'big'):08X}:{port:04X}"


def _table_uid(peer: tuple[str, int], local: tuple[str, int], table: str) -> int | None:
    needle = f" {_proc_net_address(*peer)} {_proc_net_address(*local)} ".encode("ascii")
    try:
        with open(table, "rb") as f:
            data = f.read()
    except OSError:
        return None
    at = data.find(needle)
    if at < 0:
        return -1  # readable, yet no such socket: refuse rather than guess
    end = data.find(b"\n", at)
    cols = data[data.rfind(b"\n", 0, at) + 1 : end if end >= 0 else len(data)].split()
    try:
        return int(cols[7])
    except (IndexError, ValueError):
        return None


def peer_uid(peer: tuple[str, int], local: tuple[str, int], table: str = "/proc/net/tcp") -> int | None:
    """The uid owning the other end of a loopback connection (Linux), -1 when no socket of this machine is
    that end, or None when neither the kernel's diagnostics nor its table can be read (not Linux)."""
    uid = _netlink_uid(peer, local) if sys.platform.startswith("linux") else None
    return uid if uid is not None else _table_uid(peer, local, table)
