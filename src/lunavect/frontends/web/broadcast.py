"""One reader of the store for the whole server, and the live list it hands to every connected browser.

`StoreWorker` is one thread that owns one SQLite connection: requests, token checks and arrangement changes
run there one after another, never on the event loop. `Broadcast` turns each signal of the shared change feed
(`lunavect.listing.changes`) into exactly one read of the list, encoded once and handed to every subscriber (the
Server-Sent Events streams), so fifty open phones cost what one does. A subscriber that falls behind only ever gets the newest list.

Its reading after each change and each clock tick is a serving loop: whatever fails in one reading is noted
through `lunavect.faults.Loop` (logged, counted, shown by `lunavect doctor`), and the next change is read and
sent as usual; an unexpected exception used to end the task, and every open page kept its list for good.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

from lunavect.faults import Loop
from lunavect.frontends.web import document, tokens
from lunavect.store import StoreError

T = TypeVar("T")

# Automatic hiding depends on the clock as well as on the store: read the list again this often.
CLOCK_RELOAD_S = 15.0
# A comment line this often keeps proxies and phones from closing a quiet stream.
KEEPALIVE_S = 20.0
KEEPALIVE = b""
LOOP_NAME = "web panel"
log = logging.getLogger("lunavect.web")


class StoreWorker:
    """The server's one connection to the store, used from one thread only."""

    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        self._connect = connect
        self._conn: sqlite3.Connection | None = None
        self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="lunavect-web-store")

    def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self._conn is None:
            self._conn = self._connect()
        return fn(self._conn)

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await asyncio.wrap_future(self._executor.submit(self._call, fn))

    def close(self) -> None:
        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        self._executor.submit(shut).result()
        self._executor.shutdown(wait=True)


class Subscriber:
    """One open stream: holds only the newest list it has not sent yet."""

    def __init__(self, token_id: str) -> None:
        self.token_id = token_id
        self._pending: bytes | None = None
        self._closed = False
        self.revoked = False
        self._wake = asyncio.Event()

    def push(self, data: bytes) -> None:
        self._pending = data
        self._wake.set()

    def close(self, revoked: bool = False) -> None:
        self._closed = True
        self.revoked = revoked
        self._wake.set()

    async def next(self, keepalive: float = KEEPALIVE_S) -> bytes | None:
        """The next list to send, KEEPALIVE after `keepalive` quiet seconds, or None once closed."""
        if self._pending is None and not self._closed:
            try:
                await asyncio.wait_for(self._wake.wait(), keepalive)
            except TimeoutError:
                return KEEPALIVE
        self._wake.clear()
        if self._closed:
            return None
        data, self._pending = self._pending, None
        return data if data is not None else KEEPALIVE


class Broadcast:
    """The live list: read once per change, shared by every subscriber."""

    def __init__(self, worker: StoreWorker, clock: Callable[[], float] = time.time, guard: Loop | None = None) -> None:
        self.worker = worker
        self.clock = clock
        self.guard = guard or Loop(LOOP_NAME, log)
        self.subscribers: set[Subscriber] = set()
        self.latest: bytes | None = None
        self._body: bytes | None = None  # the latest list without its reading time
        self.reads = 0  # how many times the list was read (one per change, whatever the number of browsers)
        self._stale = True
        self._lock = asyncio.Lock()

    async def refresh(self) -> bytes:
        """Read the list and the tokens once; send the list, if it changed, to every stream whose token still
        exists (the collector commits every tick, mostly without changing what a row says)."""
        async with self._lock:
            now = self.clock()
            (data, body), known = await self.worker.run(
                lambda conn: (document.read(conn, now), tokens.list_tokens(conn))
            )
            self.reads += 1
            changed = body != self._body
            self.latest, self._body = data, body
            self._stale = False
            ids = {t.id for t in known}
            for subscriber in list(self.subscribers):
                if subscriber.token_id in ids:
                    if changed:
                        subscriber.push(data)
                else:  # revoked: the stream ends, and the page cannot reconnect with that token
                    subscriber.close(revoked=True)
                    self.subscribers.discard(subscriber)
            return data

    async def subscribe(self, token_id: str) -> Subscriber:
        subscriber = Subscriber(token_id)
        data = self.latest if not self._stale and self.latest is not None else await self.refresh()
        subscriber.push(data)
        self.subscribers.add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self.subscribers.discard(subscriber)

    def close_all(self) -> None:
        """End every stream (the server stops): browsers retry on their own until it is back."""
        for subscriber in list(self.subscribers):
            subscriber.close()
        self.subscribers.clear()

    async def follow(self, changes: AsyncIterator[None]) -> None:
        """Read the list after each change while anyone watches; otherwise only note that it is stale."""
        async for _ in changes:
            if self.subscribers:
                await self._refresh_quietly()
            else:
                self._stale = True

    async def tick(self, every: float = CLOCK_RELOAD_S) -> None:
        while True:
            await asyncio.sleep(every)
            if self.subscribers:
                await self._refresh_quietly()
            else:
                self._stale = True

    async def _refresh_quietly(self) -> None:
        try:
            await self.refresh()
        except (sqlite3.Error, OSError, StoreError):
            self._stale = True  # the next change or tick tries again; the streams keep their last list
        except Exception as exc:  # noqa: BLE001 - the live list goes on with the next change
            self._stale = True
            await asyncio.to_thread(self.guard.failed, exc)  # the note writes to the store: not on the loop
            await asyncio.sleep(self.guard.pause())
