"""The change feed: a front end hears of each change it shows from the running collector, of nothing else (the
collector's tick bookkeeping wakes nobody), and falls back to `PRAGMA data_version` when no collector runs."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from unit_support import stop_collector

from lunavect import paths, store
from lunavect.collector import process as collector_process
from lunavect.collector import setup_report
from lunavect.listing import arrangement, changes

PROMPT = {"session_id": "feed-1", "hook_event_name": "UserPromptSubmit", "cwd": "/tmp/p", "prompt": "x"}
STOP = {"session_id": "feed-1", "hook_event_name": "Stop", "cwd": "/tmp/p"}


def _tick_started(conn) -> float:
    return float(store.collector_values(conn).get("tick_started", "0"))


def _wait_for_ticks(conn, count: int) -> None:
    """Wait (bounded) until the collector has finished `count` more ticks."""
    feed = changes.Feed(path=paths.data_dir() / "no-such.sock", fallback_s=0.05)
    try:
        for _ in range(count):
            before = _tick_started(conn)
            while _tick_started(conn) == before:
                assert feed.wait(timeout=10), "the collector stopped ticking"
    finally:
        feed.close()


def _running_collector():
    """The store, with a collector running on it that has finished a tick."""
    conn = store.connect()
    assert collector_process.ensure_running()
    assert collector_process.wait_caught_up(conn)
    return conn


@pytest.mark.process
def test_the_running_collector_notifies_each_change_and_nothing_else(iso_env):
    conn = _running_collector()
    feed = changes.Feed()
    try:
        assert feed.wait(timeout=0.01) is False
        assert feed.subscribed

        # Its own snapshot commit: a hook event turns the session to working.
        assert iso_env.hook(PROMPT).returncode == 0
        assert feed.wait(timeout=10)
        state = json.loads(conn.execute("SELECT data FROM snapshot WHERE id = 'claude:feed-1'").fetchone()[0])
        assert state["state"] == "working"
        assert setup_report.stored(conn) is not None  # the collector recorded the setup report, too

        # Ticks go on (and commit their bookkeeping) without waking the feed: nothing it shows changed.
        while feed.wait(timeout=0):
            pass
        _wait_for_ticks(conn, 3)
        assert feed.wait(timeout=0) is False

        # Another process's commit (an arrangement), passed on by the collector.
        other = store.connect()
        arrangement.pin(other, "claude:feed-1")
        other.close()
        assert feed.wait(timeout=10)
        assert feed.subscribed
    finally:
        feed.close()
        stop_collector(iso_env.data)


def test_without_a_collector_the_feed_falls_back_to_data_version(iso_env):
    conn = store.connect()
    feed = changes.Feed(fallback_s=0.02)
    try:
        assert feed.wait(timeout=0.1) is False
        assert not feed.subscribed
        store.set_setting(conn, "something", "1")
        assert feed.wait(timeout=10)
        assert not feed.subscribed
    finally:
        feed.close()


@pytest.mark.process
def test_a_collector_that_goes_away_leaves_the_feed_on_its_fallback(iso_env):
    conn = _running_collector()
    feed = changes.Feed(fallback_s=0.02)
    try:
        feed.wait(timeout=0)
        assert feed.subscribed
        stop_collector(iso_env.data)
        while feed.subscribed:
            assert feed.wait(timeout=10)
        store.set_setting(conn, "something", "2")
        assert feed.wait(timeout=10)
    finally:
        feed.close()


@pytest.mark.process
def test_the_asyncio_form_yields_a_change_for_the_running_collector(iso_env):
    _running_collector()

    async def first_change_after_a_hook() -> bool:
        feed = changes.Feed()
        stream = feed.changes()
        try:
            waiting = asyncio.ensure_future(anext(stream))
            await asyncio.sleep(0)
            assert iso_env.hook(STOP).returncode == 0
            await asyncio.wait_for(waiting, timeout=10)
            return feed.subscribed
        finally:
            await stream.aclose()
            feed.close()

    try:
        assert asyncio.run(first_change_after_a_hook())
    finally:
        stop_collector(iso_env.data)


def test_a_long_data_folder_path_still_gets_a_socket(iso_env, monkeypatch):
    deep = iso_env.root / ("d" * 60) / ("e" * 60)
    monkeypatch.setenv("LUNAVECT_HOME", str(deep))
    paths.ensure_private_dir(deep)
    publisher = changes.Publisher()
    feed = changes.Feed(fallback_s=0.02, version=lambda: 0)
    try:
        assert len(str(changes.socket_path())) > 107
        assert feed.wait(timeout=0) is False
        assert feed.subscribed
        while publisher.subscribers == 0:
            feed.wait(timeout=0.01)
        publisher.publish()
        assert feed.wait(timeout=10)
    finally:
        feed.close()
        publisher.close()


def test_the_publisher_knows_while_a_front_end_listens_and_forgets_one_that_closed(iso_env):
    """The collector watches in fine steps only while someone listens: a closed front end must not keep it so
    until the next publish, which may not come for a long time at rest."""
    paths.ensure_private_dir(paths.data_dir())
    publisher = changes.Publisher()
    feed = changes.Feed(fallback_s=0.02, version=lambda: 0)
    try:
        assert not publisher.listened()
        feed.wait(timeout=0)
        deadline = time.monotonic() + 10
        while publisher.subscribers == 0:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert publisher.listened()
        feed.close()
        deadline = time.monotonic() + 10
        while publisher.listened():
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert publisher.subscribers == 0
    finally:
        feed.close()
        publisher.close()


def _subscribed(publisher: changes.Publisher, count: int) -> None:
    deadline = time.monotonic() + 10
    while publisher.subscribers < count:
        assert time.monotonic() < deadline, "the publisher never took the subscriber"
        time.sleep(0.01)


def _hears(sock, timeout: float = 5.0) -> bool:
    sock.settimeout(timeout)
    try:
        return sock.recv(16) == b"\x01"
    except TimeoutError:
        return False


def test_an_accept_that_fails_is_counted_and_the_next_subscriber_is_taken(iso_env, monkeypatch):
    """Out of descriptors at accept once ended the accepting thread: no front end could subscribe again."""
    import errno
    import socket

    from lunavect import faults

    paths.ensure_private_dir(paths.data_dir())
    publisher = changes.Publisher()
    real = socket.socket.accept
    failures = [OSError(errno.EMFILE, "Too many open files")]

    def flaky(self):
        if self is publisher._server and failures and not publisher._closed:
            raise failures.pop()
        return real(self)

    monkeypatch.setattr(socket.socket, "accept", flaky)
    first = changes.connect(publisher.path)  # taken by the accept already waiting; the next one fails
    second = None
    try:
        _subscribed(publisher, 1)
        deadline = time.monotonic() + 10
        while failures and time.monotonic() < deadline:
            time.sleep(0.01)
        second = changes.connect(publisher.path)
        _subscribed(publisher, 2)
        publisher.publish()
        assert _hears(first) and _hears(second)
        (failure,) = faults.loop_failures(store.connect())
        assert (failure.loop, failure.count) == ("change feed", 1) and "Too many open files" in failure.error
    finally:
        for sock in (first, second):
            if sock is not None:
                sock.close()
        publisher.close()


def test_a_subscriber_that_fails_in_any_way_does_not_keep_the_change_from_the_others(iso_env):
    from lunavect import faults

    class Broken:
        def send(self, data: bytes) -> int:
            raise RuntimeError("injected")

        def close(self) -> None:
            pass

    paths.ensure_private_dir(paths.data_dir())
    publisher = changes.Publisher()
    good = changes.connect(publisher.path)
    try:
        _subscribed(publisher, 1)
        with publisher._lock:
            publisher._subscribers.insert(0, Broken())  # type: ignore[arg-type]
        publisher.publish()  # never raises into the collector's tick
        assert _hears(good)
        publisher.publish()  # the broken one was dropped; the next change reaches the good one too
        assert _hears(good) and publisher.subscribers == 1
        (failure,) = faults.loop_failures(store.connect())
        assert (failure.loop, failure.error) == ("change feed", "RuntimeError: injected")
    finally:
        if good is not None:
            good.close()
        publisher.close()


def test_a_change_published_as_a_front_end_connects_reaches_it(iso_env):
    """A front end's feed reloads once it has connected, before the publisher's thread may have taken the
    connection: a change published in between must reach it, or the panel waits for one that never comes (an
    empty panel said "The collector has not looked at this machine's clients yet" for a minute on a loaded
    machine, the setup report stored meanwhile). Closing the publisher ends its thread."""
    paths.ensure_private_dir(paths.data_dir())
    publisher = changes.Publisher()
    subscribers = []
    try:
        for _ in range(30):
            sock = changes.connect(publisher.path)
            assert sock is not None
            subscribers.append(sock)
            publisher.publish()  # at once: the thread has had no time to accept
            assert _hears(sock, timeout=1.0)
    finally:
        for sock in subscribers:
            sock.close()
        publisher.close()
    assert not publisher._thread.is_alive()
