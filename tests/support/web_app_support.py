"""The web panel's routes in-process, for its unit tests: sessions seeded in the store as the collector would
write them, a client carrying a token, the panel's feed over a store worker, and a scenario run in a loop of its
own. Imported only by tests that have skipped already when the web extra is missing."""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
import time
from collections.abc import AsyncIterator, Coroutine, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from unit_support import a_session, seed_snapshot

from lunavect import store
from lunavect.frontends.web.app import COOKIE
from lunavect.frontends.web.broadcast import Broadcast, StoreWorker

BASE = "http://127.0.0.1:8765"
ORIGIN = {"Origin": BASE, "Content-Type": "application/json"}


def iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def seed(conn, sid: str, state: str = "ready", title: str | None = None, ago: float = 60.0) -> str:
    now = time.time()
    session = a_session(
        sid,
        title=title or f"Session {sid}",
        project="proj",
        cwd="/home/dev/proj",
        host="devbox",
        state=state,
        activity="Bash" if state == "working" else None,
        since=iso(now - ago) if state == "working" else None,
        resume=f"claude --resume {sid}",
        updated=iso(now - ago),
        pid=4242,
        tty="/dev/pts/7",
    )
    seed_snapshot(conn, session, updated=now)
    return session.id


def as_(client, secret):
    client.cookies.set(COOKIE, secret)
    return client


@asynccontextmanager
async def followed_feed() -> AsyncIterator[tuple[Broadcast, asyncio.Queue[None], asyncio.Task[None]]]:
    """The web panel's feed over a store worker of its own, following the commits a test announces by putting
    None on the queue (what the collector's change signal does); its follower and worker stopped at the end."""
    worker = StoreWorker(store.connect)
    feed = Broadcast(worker)
    changes: asyncio.Queue[None] = asyncio.Queue()

    async def signals():
        while True:
            yield await changes.get()

    follower = asyncio.create_task(feed.follow(signals()))
    try:
        yield feed, changes, follower
    finally:
        follower.cancel()
        await asyncio.gather(follower, return_exceptions=True)
        worker.close()


def run_in_own_loop(coroutine: Coroutine[Any, Any, None]) -> None:
    """asyncio.run in a thread of its own: a Playwright test in the same worker keeps a loop running here."""
    failures: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(coroutine)
        except BaseException as exc:  # handed to the test's thread
            failures.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the scenario did not finish"
    if failures:
        raise failures[0]


@contextmanager
def served(app: Any) -> Iterator[int]:
    """`app` on a real uvicorn server on a free loopback port (its thread stopped at the end); yields the port."""
    import uvicorn

    from lunavect.frontends.web import server

    sock = server.bind(server.Listen("127.0.0.1", 0))
    with running_on(uvicorn.Server(server.uvicorn_config(app)), sock):
        yield sock.getsockname()[1]


@contextmanager
def running_on(running: Any, sock: Any) -> Iterator[None]:
    """A uvicorn server serving `sock` on a thread, from when it has started until the block ends."""
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not running.started:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    try:
        yield
    finally:
        running.should_exit = True
        thread.join(timeout=10)
        sock.close()
