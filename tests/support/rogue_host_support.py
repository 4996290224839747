"""What a rogue host does, the way any NATS client could, and what this machine then holds: the trust
boundary's sync tests share them."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import msgspec
import nats
from sync_support import row

from lunavect import store
from lunavect.listing.sessions import read_sessions
from lunavect.sync import keys


def write(url: str, user: tuple[str, str], *entries: tuple[str, bytes | None]) -> None:
    """Put (or delete, for None) keys of the bucket as `user`, the way any NATS client could."""

    async def main() -> None:
        nc = await nats.connect(servers=[url], user=user[0], password=user[1])
        try:
            kv = await nc.jetstream(timeout=5.0).key_value(keys.BUCKET)
            for key, value in entries:
                if value is None:
                    await kv.delete(key)
                else:
                    await kv.put(key, value)
        finally:
            await nc.close()

    asyncio.run(main())


def beat(machine: str = "m-rogue", **fields: Any) -> bytes:
    return msgspec.json.encode({"at": time.time(), "every": 1.0, "machine": machine, **fields})


def raw_row(session_id: str, host: str, **fields: Any) -> bytes:
    return msgspec.json.encode({**msgspec.json.decode(row(session_id, host)), **fields})


def sessions(path: Path) -> list[Any]:
    conn = store.connect(path)
    try:
        return read_sessions(conn, include_hidden=True)
    finally:
        conn.close()


def collector_value(path: Path, key: str) -> str | None:
    conn = store.connect(path)
    try:
        return store.collector_values(conn).get(key)
    finally:
        conn.close()
