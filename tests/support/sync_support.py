"""Helpers of the sync tests: a host's store and configuration, rows to offer, bounded waits."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import nats
import nats.errors
import nats.js.errors
from nats_servers import ADMIN
from unit_support import a_session

from lunavect import store
from lunavect.core.model import State
from lunavect.listing.sessions import own_ids, read_sessions
from lunavect.sync.client import SyncClient
from lunavect.sync.config import SyncConfig

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float = 20.0, what: str = "condition") -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def host_config(
    folder: Path, host: str, password: str, servers: list[str], beat_s: float = 1.0, **extra: Any
) -> SyncConfig:
    secret = folder / f"{host}.password"
    secret.write_text(password + "\n")
    return SyncConfig(servers=tuple(servers), host=host, user=host, password_file=str(secret), beat_s=beat_s, **extra)


def host_store(folder: Path, host: str) -> Path:
    path = folder / host / "lunavect.sqlite3"
    store.connect(path).close()
    return path


def row(session_id: str, host: str, state: State = State.WORKING, title: str = "a task") -> bytes:
    session = a_session(
        session_id,
        host=host,
        state=state,
        title=title,
        project="proj",
        cwd="/src/proj",
        activity="thinking" if state == State.WORKING else None,
        resume=f"claude --resume {session_id}",
    )
    return msgspec.json.encode(session)


def states(path: Path, host: str | None = None) -> dict[str, tuple[str, str]]:
    """Each session the store at `path` lists (its own and other machines'), with its host and state."""
    conn = store.connect(path)
    try:
        return {s.id: (s.host, s.state) for s in read_sessions(conn, include_hidden=True, host=host)}
    finally:
        conn.close()


def create_bucket(servers: list[str], replicas: int = 1) -> None:
    """What the server's administrator does once: create the bucket (hosts may not)."""

    async def main() -> None:
        nc = await nats.connect(servers=servers, user=ADMIN[0], password=ADMIN[1])
        try:
            js = nc.jetstream(timeout=5.0)
            deadline = time.monotonic() + 60
            while True:  # a new cluster answers once it has elected its leader
                try:
                    await js.create_key_value(bucket="lunavect", history=1, replicas=replicas)
                    return
                except (nats.errors.TimeoutError, nats.js.errors.APIError):
                    if time.monotonic() > deadline:
                        raise
                    await asyncio.sleep(0.5)
        finally:
            await nc.close()

    asyncio.run(main())


@contextmanager
def started_clients(folder: Path, servers: list[str]) -> Iterator[Callable[..., tuple[SyncClient, Path]]]:
    """Starts the sync client of a host on these servers (its store in `folder` unless one is given: a
    restarted host keeps its own), as many as a test asks for; stops them all at the end."""
    create_bucket(servers)
    started: list[SyncClient] = []

    def start(host: str, password: str, beat_s: float = 1.0, path: Path | None = None) -> tuple[SyncClient, Path]:
        path = path or host_store(folder, host)
        client = SyncClient(host_config(folder, host, password, servers, beat_s), f"m-{host}", path, own_ids=own_ids)
        client.start()
        started.append(client)
        return client, path

    try:
        yield start
    finally:
        for client in started:
            client.stop()
