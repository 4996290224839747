"""The owner of a loopback connection's other end: asked of the kernel's socket diagnostics (one lookup),
or read from /proc/net/tcp when those cannot be asked; both say the same."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator

import pytest

from lunavect.host import loopback_peer

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's socket tables are Linux's")


@pytest.fixture
def connection() -> Iterator[tuple[tuple[str, int], tuple[str, int]]]:
    """(peer, local) of an accepted loopback connection, as the listener sees them."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.create_connection(server.getsockname())
        conn, peer = server.accept()
        try:
            yield peer, conn.getsockname()
        finally:
            conn.close()
            client.close()


def test_the_kernel_names_this_user_for_a_connection_of_ours(connection):
    peer, local = connection
    assert loopback_peer._netlink_uid(peer, local) == os.getuid()
    assert loopback_peer.peer_uid(peer, local) == os.getuid()


def test_no_such_socket_is_refused_not_guessed(connection):
    _peer, local = connection
    assert loopback_peer.peer_uid(("127.0.0.1", 1), local) == -1


def test_the_table_says_the_same_when_netlink_cannot_be_asked(connection, monkeypatch):
    peer, local = connection
    monkeypatch.setattr(loopback_peer, "_netlink_uid", lambda *_: None)
    assert loopback_peer.peer_uid(peer, local) == os.getuid()
    assert loopback_peer.peer_uid(("127.0.0.1", 1), local) == -1
    assert loopback_peer.peer_uid(peer, local, table="/nonexistent") is None
