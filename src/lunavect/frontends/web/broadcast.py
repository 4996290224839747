"""One reader of the store for the whole server, and the live list it hands to every connected browser.

`StoreWorker` is one thread that owns one SQLite connection: requests, token checks and arrangement changes
run there one after another, never on the event loop. `Broadcast` turns each signal of the shared change feed
(`lunavect.listing.changes`) into exactly one read of the list, encoded once and handed to every subscriber (the
Server-Sent Events streams), so fifty open phones cost what one does. A subscriber that falls behind only ever gets the newest list.

Open streams are answers in progress, which the connection gate never closes to make room
(`connections.Gate`): so one token holds at most `STREAMS_PER_TOKEN` of them (a new one ends that token's oldest),
and view-only tokens together hold at most `view_streams`, which leaves the gate's last slots to the control
tokens. A view token that opened a stream on every connection the server had locked everyone out, the control
token's person included.

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
# How many streams one token may keep open: a person's pages on a few devices. One more ends its oldest.
STREAMS_PER_TOKEN = 4
# The connections view-only streams never take: a control token's requests (and its own streams) always have
# room, whatever view-only pages are open.
CONTROL_RESERVE = 8
# Why a stream ended that a page should not simply reopen: its token was revoked, or a newer stream of the same
# token took its place (each is sent as that event).
REVOKED, REPLACED = "revoked", "replaced"
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

    def __init__(self, token_id: str, control: bool = False, opened: int = 0) -> None:
        self.token_id = token_id
        self.control = control
        self.opened = opened  # the order streams were opened in: the oldest makes room first
        self._pending: bytes | None = None
        self._closed = False
        self.why: str | None = None  # REVOKED or REPLACED, once ended for that
        self._wake = asyncio.Event()

    @property
    def revoked(self) -> bool:
        return self.why == REVOKED

    def push(self, data: bytes) -> None:
        self._pending = data
        self._wake.set()

    def close(self, why: str | None = None) -> None:
        self._closed = True
        self.why = why
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

    def __init__(
        self,
        worker: StoreWorker,
        clock: Callable[[], float] = time.time,
        guard: Loop | None = None,
        view_streams: int | None = None,
    ) -> None:
        self.worker = worker
        self.clock = clock
        self.guard = guard or Loop(LOOP_NAME, log)
        self.view_streams = view_streams  # None: no bound beside the one per token
        self.subscribers: set[Subscriber] = set()
        self._opened = 0
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
                    self._end(subscriber, REVOKED)
            return data

    async def subscribe(self, token_id: str, control: bool = False) -> Subscriber:
        """A new stream of `token_id` (a control token's when `control`), after ending the streams it
        replaces: that token's oldest past `STREAMS_PER_TOKEN`, the oldest view-only one past `view_streams`."""
        self._opened += 1
        subscriber = Subscriber(token_id, control, self._opened)
        data = self.latest if not self._stale and self.latest is not None else await self.refresh()
        subscriber.push(data)
        self._make_room(subscriber)
        self.subscribers.add(subscriber)
        return subscriber

    def _make_room(self, new: Subscriber) -> None:
        own = [s for s in self.subscribers if s.token_id == new.token_id]
        if len(own) >= STREAMS_PER_TOKEN:
            self._end(min(own, key=lambda s: s.opened), REPLACED)
        viewers = [s for s in self.subscribers if not s.control]
        if not new.control and self.view_streams is not None and len(viewers) >= self.view_streams:
            self._end(min(viewers, key=lambda s: s.opened), REPLACED)

    def _end(self, subscriber: Subscriber, why: str) -> None:
        subscriber.close(why)
        self.subscribers.discard(subscriber)

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
